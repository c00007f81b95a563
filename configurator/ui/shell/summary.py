"""Summary strip: power against the PSU, cards, bridges, and how many jobs fit."""

from __future__ import annotations

from PySide6.QtWidgets import QHBoxLayout, QLabel, QWidget

from configurator.engine.result import BuildResult


class SummaryStrip(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 2, 8, 2)
        self.power = QLabel()
        self.cards = QLabel()
        self.bridges = QLabel()
        self.jobs = QLabel()
        self.links = QLabel()
        self.compute = QLabel()
        for w in (self.power, self.cards, self.bridges, self.jobs, self.links, self.compute):
            w.setTextFormat(w.textFormat().RichText)
            layout.addWidget(w)
            layout.addSpacing(10)
        layout.addStretch(1)

    def update_result(self, result: BuildResult, n_cards: int, n_bridges: int) -> None:
        p = result.power
        if p and p.psu_capacity_w and p.margin_w is not None:
            tight = p.tight_above_w is not None and p.total_w > p.tight_above_w  # the engine's PSU_TIGHT line
            colour = "#C62828" if p.margin_w < 0 else ("#E69F00" if tight else "#2E7D32")
            self.power.setText(f"<b>Power</b> <span style='color:{colour}'>{p.total_w:,.0f} W</span> of "
                               f"{p.psu_capacity_w:,.0f} W")  # fmt: skip
            self.power.setToolTip(f"Cards {p.cards_w:,.0f} W + platform {p.platform_w:,.0f} W; "
                                  f"margin {p.margin_w:,.0f} W (redundant PSUs held back)")  # fmt: skip
        else:
            self.power.setText("<b>Power</b> PSU rating unpublished")
            self.power.setToolTip(
                f"Cards {p.cards_w:,.0f} W + platform {p.platform_w:,.0f} W; check them against the vendor's PSU"
                if p
                else ""
            )
        self.cards.setText(f"<b>Cards</b> {n_cards}")
        self.bridges.setText(f"<b>Bridges</b> {n_bridges}")
        counts = {s: sum(1 for j in result.jobs if j.status == s) for s in ("fits", "tight", "does-not-fit")}
        self.jobs.setText(
            f"<b>Jobs</b> <span style='color:#2E7D32'>{counts['fits']} fit</span> · "
            f"<span style='color:#E69F00'>{counts['tight']} tight</span> · "
            f"<span style='color:#C62828'>{counts['does-not-fit']} don't fit</span>"
        )
        self.links.setText(f"<b>Links</b> {result.link_rates}")
        if result.compute_rates == "estimated":
            self.compute.setText("<b>Compute</b> <span style='color:#E69F00'>incl. estimates</span>")
            self.compute.setToolTip("Cards without a published dense BF16 rate use the catalog's UNCONFIRMED "
                                    "estimate (View > Compute rates)")  # fmt: skip
        else:
            self.compute.setText("<b>Compute</b> published")
            self.compute.setToolTip("Compute time only from published dense BF16 rates (View > Compute rates)")
