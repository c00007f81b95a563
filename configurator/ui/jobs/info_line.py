"""The line at the top of the Jobs form: the selected job's name, its fit status in the fit colour, its
parameter counts and the training stack it runs (the build's ``stack:`` defaults applied). Names are user
text: escaped before they go into rich text (issue 13)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from configurator.catalog.richtext import escape_rich
from configurator.engine.model.build import Job
from configurator.engine.model.result import JobResult
from configurator.present.colours import status_ink
from configurator.present.job_words import parameters_words
from configurator.ui.base import WrapLabel
from configurator.ui.jobs.fields import STATUS_TEXT

NO_JOB = "No job selected. Add one to see whether it fits."


def info_text(job: Job, result: JobResult, dark: bool = False) -> str:
    status = STATUS_TEXT.get(result.status, result.status)
    colour = status_ink(result.status, dark)  # text inks of 4.5:1 (the fills were 2.3:1 amber, 2.9:1 red on dark)
    # the parameters in the words the text report prints ('41.9 M trained' read as jargon beside '8.03 B params')
    params = parameters_words(result.params_total, result.params_trainable)
    stack = f"<br>Stack: {escape_rich(result.stack)}" if result.stack else ""  # what the job runs, defaults applied
    return (f"<b>{escape_rich(job.name)}</b> · <span style='color:{colour}'><b>{status}</b></span><br>"
            f"{params[:1].upper() + params[1:]}{stack}")  # fmt: skip


def info_label() -> QLabel:
    label = WrapLabel()
    label.setTextFormat(Qt.TextFormat.RichText)
    label.setWordWrap(True)
    label.setObjectName("jobInfo")
    return label
