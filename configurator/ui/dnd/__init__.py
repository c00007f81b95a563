"""Drag and drop: the MIME formats cards, slots, bridges, jobs and MIG profiles travel in, and DragList."""

from configurator.ui.dnd.mime import bridge_mime, card_mime, job_mime, slot_mime

__all__ = ["bridge_mime", "card_mime", "job_mime", "slot_mime"]
