"""Turn a typed Python signature into a pydantic model and a JSON schema.

``Annotated[..., Field(...)]`` constraints and descriptions are kept (type hints are
read with ``include_extras=True``), ``Literal`` becomes an ``enum``, and a parameter
with a default is optional. Descriptions come, in order of precedence, from explicit
``param_descriptions``, from ``Field(description=...)``, and from the docstring's
``Args:`` section (or ``:param name:`` lines).

Arguments are data from a model and from people: every argument model refuses NaN and
infinities (also as the strings ``"nan"``/``"inf"``, and nested in lists or dicts), so no
tool ever sees one. A servo asked for NaN degrees must not move.
"""

from __future__ import annotations

import inspect
import math
import re
from collections.abc import Callable
from types import UnionType
from typing import Annotated, Any, Union, get_args, get_origin, get_type_hints

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    create_model,
    field_validator,
)
from pydantic.fields import FieldInfo

from edgeagent.errors import ToolDefinitionError

_ARGS_HEADER = re.compile(r"^\s*(Args|Arguments|Parameters)\s*:\s*$")
_SECTION_HEADER = re.compile(r"^\s*[A-Z][A-Za-z ]*:\s*$")
_GOOGLE_PARAM = re.compile(r"^\s*(\*{0,2}\w+)\s*(\([^)]*\))?\s*:\s*(.*)$")
_SPHINX_PARAM = re.compile(r"^\s*:param\s+(?:\S+\s+)?(\w+)\s*:\s*(.*)$")


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """Split a docstring into its description and per-parameter descriptions.

    The description is the first paragraph, joined into one line.
    """
    if not doc:
        return "", {}
    lines = inspect.cleandoc(doc).splitlines()
    para: list[str] = []
    for line in lines:
        if not line.strip() or _ARGS_HEADER.match(line) or _SPHINX_PARAM.match(line):
            break
        para.append(line.strip())
    params: dict[str, str] = {}
    current: str | None = None
    in_args = False
    for line in lines:
        sphinx = _SPHINX_PARAM.match(line)
        if sphinx:
            current = sphinx.group(1)
            params[current] = sphinx.group(2).strip()
            continue
        if _ARGS_HEADER.match(line):
            in_args, current = True, None
            continue
        if not in_args:
            continue
        if _SECTION_HEADER.match(line):
            in_args, current = False, None
            continue
        google = _GOOGLE_PARAM.match(line)
        indent = len(line) - len(line.lstrip())
        if google and indent <= 4:
            current = google.group(1).lstrip("*")
            params[current] = google.group(3).strip()
        elif current and line.strip():
            params[current] = f"{params[current]} {line.strip()}".strip()
    return " ".join(para), params


class ToolArguments(BaseModel):
    """The base of every tool's argument model: no unknown keys, only finite numbers."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    @field_validator("*", mode="before")
    @classmethod
    def _no_bool_for_numbers(cls, value: Any, info: ValidationInfo) -> Any:
        # pydantic's lax mode reads true as 1: {"angle": true} moved the servo to 1°.
        field = cls.model_fields.get(info.field_name or "")
        if isinstance(value, bool) and field is not None and _numbers_only(field.annotation):
            raise ValueError("must be a number, not true or false")
        return value

    @field_validator("*")
    @classmethod
    def _finite(cls, value: Any) -> Any:
        # allow_inf_nan covers float fields; this covers Any, dict and list values too.
        if not _all_finite(value):
            raise ValueError("numbers must be finite (not NaN or infinity)")
        return value


def _numbers_only(annotation: Any) -> bool:
    """Whether a field takes numbers and nothing else (``int``, ``float | None``...)."""
    if get_origin(annotation) is Annotated:
        return _numbers_only(get_args(annotation)[0])
    if get_origin(annotation) in (Union, UnionType):
        kinds = [a for a in get_args(annotation) if a is not type(None)]
        return bool(kinds) and all(_numbers_only(a) for a in kinds)
    return annotation in (int, float)


def _all_finite(value: Any) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(_all_finite(v) for v in value.values())
    if isinstance(value, list | tuple | set | frozenset):
        return all(_all_finite(v) for v in value)
    return True


def _clean(node: Any, defs: dict[str, Any]) -> Any:
    """Inline ``$ref``s, drop ``title``s and collapse ``Optional[X]`` to ``X``."""
    if isinstance(node, list):
        return [_clean(item, defs) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        target = defs[node["$ref"].rsplit("/", 1)[-1]]
        merged = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
        return _clean(merged, defs)
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in ("title", "$defs"):
            continue
        out[key] = _clean(value, defs)
    any_of = out.get("anyOf")
    if isinstance(any_of, list):
        non_null = [s for s in any_of if s != {"type": "null"}]
        if len(non_null) == 1 and len(non_null) < len(any_of):
            del out["anyOf"]
            out = {**non_null[0], **out}
    if "const" in out and "enum" not in out:
        out["enum"] = [out.pop("const")]
    if out.get("default", ...) is None:
        del out["default"]
    return out


def build_arguments_model(
    func: Callable[..., Any],
    *,
    name: str,
    param_descriptions: dict[str, str] | None = None,
) -> tuple[type[BaseModel], dict[str, Any], str]:
    """Return ``(model, json_schema, docstring_description)`` for ``func``.

    ``self``/``cls`` of bound methods are skipped. Every parameter needs a type hint.
    """
    try:
        hints = get_type_hints(func, include_extras=True)
    except Exception as exc:  # unresolvable forward references
        raise ToolDefinitionError(f"Cannot read the type hints of tool {name!r}: {exc}") from exc
    signature = inspect.signature(func)
    description, doc_params = parse_docstring(inspect.getdoc(func))
    explicit = dict(param_descriptions or {})
    unknown = set(explicit) - set(signature.parameters)
    if unknown:
        raise ToolDefinitionError(
            f"param_descriptions of tool {name!r} names {sorted(unknown)}, which are not "
            f"parameters; expected some of {list(signature.parameters)}"
        )
    fields: dict[str, Any] = {}
    for pname, param in signature.parameters.items():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise ToolDefinitionError(
                f"Tool {name!r} takes *{pname}; tools need named, typed parameters only"
            )
        if pname not in hints:
            raise ToolDefinitionError(
                f"Parameter {pname!r} of tool {name!r} has no type hint; add one, "
                f"for example `{pname}: str`"
            )
        default = ... if param.default is inspect.Parameter.empty else param.default
        info: FieldInfo = Field(default=default)
        text = explicit.get(pname) or doc_params.get(pname)
        annotation = hints[pname]
        field_desc = _annotated_description(annotation)
        if pname in explicit:
            info = Field(default=default, description=explicit[pname])
        elif not field_desc and text:
            info = Field(default=default, description=text)
        fields[pname] = (annotation, info)
    model = create_model(f"{name}_arguments", __base__=ToolArguments, **fields)
    raw = model.model_json_schema()
    schema = _clean(raw, raw.get("$defs", {}))
    schema.setdefault("properties", {})
    schema.setdefault("required", [])
    schema.pop("additionalProperties", None)
    return model, schema, description


def _annotated_description(annotation: Any) -> str | None:
    for meta in getattr(annotation, "__metadata__", ()):
        if isinstance(meta, FieldInfo) and meta.description:
            return meta.description
    return None
