#!/usr/bin/env bash
# Build llama-cpp-python once (portable AVX2 flags, ~4 min on two cores) and install it.
#
#   scripts/build-llama-wheel.sh [PYTHON]     # default: $PYTHON, else .venv/bin/python
#
# The wheel is cached in ~/.cache/edgeagent/wheels/ and reused; delete it to rebuild.
# GGML_NATIVE=OFF keeps the wheel usable on any x86-64 with AVX2 (not only this CPU).
set -euo pipefail

VERSION="0.3.36"
PY="${1:-${PYTHON:-.venv/bin/python}}"
WHEELS="${EDGEAGENT_WHEELS:-$HOME/.cache/edgeagent/wheels}"

if ! "$PY" -c 'import sys' 2>/dev/null; then
    echo "error: $PY is not a working Python; pass the venv's python as the argument" >&2
    exit 2
fi
mkdir -p "$WHEELS"

shopt -s nullglob
wheels=("$WHEELS"/llama_cpp_python-"$VERSION"-*.whl)
if [ ${#wheels[@]} -eq 0 ]; then
    echo "building llama-cpp-python==$VERSION into $WHEELS (takes a few minutes)" >&2
    CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON" \
        "$PY" -m pip wheel --no-cache-dir --no-deps "llama-cpp-python==$VERSION" -w "$WHEELS"
    wheels=("$WHEELS"/llama_cpp_python-"$VERSION"-*.whl)
else
    echo "using cached ${wheels[0]}" >&2
fi
if [ ${#wheels[@]} -eq 0 ]; then
    echo "error: the build left no llama_cpp_python-$VERSION wheel in $WHEELS" >&2
    exit 1
fi
# Its runtime dependencies (numpy, jinja2, diskcache, typing-extensions) come from PyPI.
"$PY" -m pip install "${wheels[0]}"
"$PY" -c "import llama_cpp; print('llama_cpp', llama_cpp.__version__, 'installed')"
