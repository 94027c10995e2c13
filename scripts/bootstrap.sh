#!/usr/bin/env bash
# Shared set-up for scripts/test and scripts/up: system packages, the virtualenv, the
# llama.cpp wheel (built once, cached) and the project itself. Idempotent and quiet
# when everything is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=${EDGEAGENT_VENV:-.venv}
EXTRAS=${1:-llamacpp}

need_apt=()
command -v mosquitto >/dev/null || need_apt+=(mosquitto)
if [[ "$EXTRAS" == *test* ]]; then
  command -v chromium >/dev/null || need_apt+=(chromium)
  command -v chromedriver >/dev/null || need_apt+=(chromium-driver)
  command -v systemd-analyze >/dev/null || need_apt+=(systemd)
fi
if ((${#need_apt[@]})); then
  echo "== installing system packages: ${need_apt[*]}"
  SUDO=""; [[ $(id -u) == 0 ]] || SUDO=sudo
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need_apt[@]}" >/dev/null \
    || { $SUDO apt-get update -q >/dev/null && $SUDO env DEBIAN_FRONTEND=noninteractive \
         apt-get install -y -q "${need_apt[@]}" >/dev/null; }
fi

if [[ ! -x "$VENV/bin/python" ]]; then
  echo "== creating $VENV"
  python3 -m venv "$VENV"
fi
PY="$VENV/bin/python"

# llama-cpp-python has no wheel on PyPI; a native build segfaults on these CPUs, so it is
# built once with portable flags and cached under ~/.cache/edgeagent/wheels.
scripts/build-llama-wheel.sh "$PY"

# The plugins that are distributions of their own (plugins/*/pyproject.toml: weather, the
# worked example) install in the same pip run, so their "edgeagent" requirement is
# this checkout. Reinstalling also rewrites edgeagent's own entry points.
PLUGIN_DISTS=()
for project in plugins/*/pyproject.toml; do PLUGIN_DISTS+=(-e "$(dirname "$project")"); done
echo "== installing edgeagent[$EXTRAS] and its plugin distributions"
"$PY" -m pip install -q --disable-pip-version-check -e ".[$EXTRAS]" "${PLUGIN_DISTS[@]}" 2>&1 \
  | grep -v "^WARNING: Location" || true
"$PY" -c "import edgeagent, edgeagent_weather, llama_cpp"
