"""Drag payloads: only ids, under vendor MIME types (the drop handler looks the id up)."""

from __future__ import annotations

from PySide6.QtCore import QMimeData

CARD_MIME = "application/vnd.gpu-configurator.card-id"
SLOT_MIME = "application/vnd.gpu-configurator.slot"


def card_mime(card_id: str) -> QMimeData:
    data = QMimeData()
    data.setData(CARD_MIME, card_id.encode())
    data.setText(card_id)
    return data


def slot_mime(slot: int, card_id: str) -> QMimeData:
    data = QMimeData()
    data.setData(SLOT_MIME, str(slot).encode())
    data.setData(CARD_MIME, card_id.encode())
    return data


def _read_int(data: QMimeData, mime: str) -> int | None:
    """The integer payload under ``mime``; None when absent or not a number (a foreign drag)."""
    if not data.hasFormat(mime):
        return None
    try:
        return int(bytes(data.data(mime).data()).decode())
    except ValueError:
        return None


def read_card(data: QMimeData) -> str | None:
    return bytes(data.data(CARD_MIME).data()).decode() if data.hasFormat(CARD_MIME) else None


def read_slot(data: QMimeData) -> int | None:
    return _read_int(data, SLOT_MIME)


JOB_MIME = "application/vnd.gpu-configurator.job"  # a job, by its name (unique in a build: Build says so)
MIG_PROFILE_MIME = "application/vnd.gpu-configurator.mig-profile"  # a MIG profile name


def job_mime(name: str) -> QMimeData:
    """A dragged job names itself, not its place in the list: a drop finds the job by name in the build it
    lands on (and refuses when that build has no job of that name)."""
    data = QMimeData()
    data.setData(JOB_MIME, name.encode())
    data.setText(name)
    return data


def read_job(data: QMimeData) -> str | None:
    """The dragged job's name; None when the drag carries no job."""
    return bytes(data.data(JOB_MIME).data()).decode() if data.hasFormat(JOB_MIME) else None


def mig_profile_mime(profile: str) -> QMimeData:
    data = QMimeData()
    data.setData(MIG_PROFILE_MIME, profile.encode())
    data.setText(profile)
    return data


def read_mig_profile(data: QMimeData) -> str | None:
    return bytes(data.data(MIG_PROFILE_MIME).data()).decode() if data.hasFormat(MIG_PROFILE_MIME) else None


BRIDGE_MIME = "application/vnd.gpu-configurator.nvlink-bridge"  # a bridge, by how many cards it joins


def bridge_mime(size: int) -> QMimeData:
    data = QMimeData()
    data.setData(BRIDGE_MIME, str(size).encode())
    data.setText(f"NVLink bridge, {size}-way")
    return data


def read_bridge(data: QMimeData) -> int | None:
    return _read_int(data, BRIDGE_MIME)
