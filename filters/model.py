"""Pydantic models of a declarative filter file (control plane only: never on the hot path).

The format is fixed by the project's filter spec (README "Declarative filters"): a top-level
``filters:`` list; each filter matches a command line by regex and says how to shrink its output.
Every model forbids unknown keys, so a typo is an error naming the key, never a silent no-op.
Cross-field rules that pydantic cannot express with types alone (regexes compile, `unless` present,
one-line messages) are checked in :mod:`thresher.filters.load`, which knows the file's lines.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

NAME_PATTERN = r"^[a-z0-9-]+$"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class Replace(_Model):
    """One per-line regex substitution (``re.sub`` semantics, ``\\1`` group references)."""
    pattern: str
    with_: str = Field(alias="with")


class ShortCircuit(_Model):
    """Replace the whole output by ``message`` when ``when`` is found and ``unless`` is not."""
    when: str
    message: str
    unless: str = Field(description="regex that blocks the rule when found anywhere; `never` turns "
                        "the guard off explicitly")


class FilterTest(_Model):
    """An inline test: real captured input and what the filter emits (before the footer)."""
    name: str
    command: str | None = None
    exit_code: int = 0
    input: str
    expected: str


class FilterSpec(_Model):
    """One declarative filter."""
    name: str = Field(pattern=NAME_PATTERN)
    description: str = Field(min_length=1)
    match: str
    strip_ansi: bool = True
    replace: list[Replace] = Field(default_factory=list)
    short_circuit: list[ShortCircuit] = Field(default_factory=list)
    strip: list[str] = Field(default_factory=list)
    keep: list[str] | None = None
    max_line_chars: int | None = Field(None, ge=20)
    head: int | None = Field(None, ge=0)
    tail: int | None = Field(None, ge=0)
    max_lines: int | None = Field(None, ge=1)
    on_empty: str | None = None
    tests: list[FilterTest] = Field(min_length=1)


class FilterFile(_Model):
    """A whole filter file."""
    filters: list[FilterSpec] = Field(min_length=1)


def model_at(loc: tuple) -> type[_Model]:
    """The model whose keys are valid at the pydantic error location ``loc`` (its last part is
    the offending key)."""
    parent = [p for p in loc[:-1] if isinstance(p, str)]
    if not parent:
        return FilterFile
    nested: dict[str, type[_Model]] = {"replace": Replace, "short_circuit": ShortCircuit,
                                       "tests": FilterTest}
    return nested.get(parent[-1], FilterSpec)


def known_keys(model: type[_Model]) -> list[str]:
    """The keys a file may use for ``model`` (aliases where they exist)."""
    return [f.alias or name for name, f in model.model_fields.items()]
