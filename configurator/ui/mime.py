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


JOB_MIME = "application/vnd.gpu-configurator.job"  # a job, by its index in the build
MIG_PROFILE_MIME = "application/vnd.gpu-configurator.mig-profile"  # a MIG profile name


def job_mime(index: int, name: str = "") -> QMimeData:
    data = QMimeData()
    data.setData(JOB_MIME, str(index).encode())
    data.setText(name or f"job {index + 1}")
    return data


def read_job(data: QMimeData) -> int | None:
    return _read_int(data, JOB_MIME)


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
