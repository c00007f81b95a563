"""Values that carry their provenance.

Every number in the catalogs says where it comes from (datasheet URL, seed article,
or ``derived: how``). A value nobody publishes is ``null`` with a note, never invented.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator


class Strict(BaseModel):
    """Base for catalog and build models: unknown keys are errors, instances are immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Sourced(Strict):
    """A number with its source. ``value`` is null when no source publishes it."""

    value: float | None
    source: str = Field(min_length=3)
    note: str | None = None

    @model_validator(mode="after")
    def _null_needs_note(self) -> Sourced:
        if self.value is None and not self.note:
            raise ValueError("a null value needs a 'note' saying why it is unknown")
        return self

    def require(self, what: str) -> float:
        """The value, or a clear error naming the field when it is unknown."""
        if self.value is None:
            raise ValueError(f"{what} is not published: {self.note}")
        return self.value


class SourcedText(Strict):
    """A text fact (connector type, cooling) with its source."""

    value: str | None
    source: str = Field(min_length=3)
    note: str | None = None
