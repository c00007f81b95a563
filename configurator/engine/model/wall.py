"""The wall circuit a build plugs into: presets by region, their continuous rating, and the check.

Continuous rating (what a load that runs for hours, as fine-tuning does, may draw):

* North America: NEC (NFPA 70) 210.19(A)(1) and 210.20(A) size a branch circuit's conductors and its
  breaker at no less than 125 % of the continuous load, a load running 3 hours or more (NEC Article 100,
  "Continuous Load"), so a continuous load may be at most 1/1.25 = 80 % of the breaker rating
  (https://www.productinfo.schneider-electric.com/na-std-ref/ : Schneider Electric data bulletin
  "Conductor Ampacity Tables", NEC information of note, 210.20(A)). 120 V x 15 A x 80 % = 1,440 W.
* IEC / Europe: a breaker to IEC 60898-1 is rated to carry its rated current In without limit of time at
  its 30 °C reference ambient (conventional non-tripping current 1.13 In for one hour; Schneider Electric FAQ
  FA369327, https://www.se.com/in/en/faqs/FA369327/); IEC 60364 has no 80 % rule for continuous loads, so
  the continuous rating is taken as volts x In. Derating for a hot cabinet or for cables grouped together
  (IEC 60364-5-52) is not modelled: the site's electrician has the last word.
* UK: a BS 1363 plug carries a fuse of at most 13 A (BS 1363-1), whatever the circuit behind the socket.

Draw at the wall: the engine's power budget (cards at their power limits plus the platform) divided by
PSU_EFFICIENCY. 80 PLUS Platinum asks 89 % at 100 % load of a 115 V internal non-redundant supply, its
lowest figure in the programme's table (https://en.wikipedia.org/wiki/80_Plus, "Efficiency level
certifications"); that figure is used, so the draw is not understated. Chassis platform
figures that were measured at the wall already include PSU losses, so this errs high there.
The transient (PCIe CEM 5.0 excursions of 100 us, engine.topology.physical) is carried by the
PSU's bulk capacitors; it lasts far shorter than a thermal-magnetic breaker takes to trip (the
instant trip of a type B breaker needs more than 3 In, IEC 60898-1 instantaneous-tripping ranges), so it is
stated, not checked against the circuit.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import Field

from configurator.catalog.sourced import Strict

PSU_EFFICIENCY = 0.89
NEC_CONTINUOUS = 0.8  # 1 / 1.25, NEC 210.19(A)(1), 210.20(A)
NEC_BASIS = "NEC 210.19(A)(1)/210.20(A): continuous load at most 80 % of the breaker"
IEC_BASIS = "IEC 60898-1: breaker carries its rated current continuously; no 80 % rule"
UK_BASIS = "BS 1363 plug fuse 13 A, carried continuously (IEC 60898-1 breaker behind it)"


@dataclass(frozen=True)
class CircuitPreset:
    label: str
    volts: float
    amps: float
    continuous_fraction: float
    basis: str


SITE_PRESETS: dict[str, CircuitPreset] = {
    "us-120v-15a": CircuitPreset("North America, 120 V / 15 A (NEMA 5-15)", 120, 15, NEC_CONTINUOUS, NEC_BASIS),
    "us-120v-20a": CircuitPreset("North America, 120 V / 20 A (NEMA 5-20)", 120, 20, NEC_CONTINUOUS, NEC_BASIS),
    "us-240v-20a": CircuitPreset("North America, 240 V / 20 A (NEMA 6-20)", 240, 20, NEC_CONTINUOUS, NEC_BASIS),
    "eu-230v-10a": CircuitPreset("Europe, 230 V / 10 A", 230, 10, 1.0, IEC_BASIS),
    "eu-230v-16a": CircuitPreset("Europe, 230 V / 16 A (CEE 7/3 socket)", 230, 16, 1.0, IEC_BASIS),
    "uk-230v-13a": CircuitPreset("UK, 230 V / 13 A (BS 1363 plug)", 230, 13, 1.0, UK_BASIS),
    "dc-208v-30a": CircuitPreset(
        "Data centre, 208 V / 30 A single-phase (NEMA L6-30)", 208, 30, NEC_CONTINUOUS, NEC_BASIS
    ),
    "dc-230v-16a": CircuitPreset("Data centre, 230 V / 16 A (IEC 60309)", 230, 16, 1.0, IEC_BASIS),
    "dc-230v-32a": CircuitPreset("Data centre, 230 V / 32 A (IEC 60309)", 230, 32, 1.0, IEC_BASIS),
}


class WallCircuit(Strict):
    """A circuit given by its numbers: ``{volts: 230, amps: 16}``; the 80 % rule applies unless said otherwise."""

    # plausible mains circuits: 1e-300 V printed a 304-digit current
    volts: float = Field(ge=12, le=1000)
    amps: float = Field(ge=1, le=400)
    # fraction of volts x amps a continuous load may draw: 0.8 (NEC) by default, 1.0 for IEC breakers
    continuous_fraction: float = Field(default=NEC_CONTINUOUS, gt=0, le=1)
    name: str | None = Field(default=None, max_length=100)


def resolve_site(site: str | WallCircuit) -> CircuitPreset:
    if isinstance(site, str):
        return SITE_PRESETS[site]
    basis = NEC_BASIS if site.continuous_fraction == NEC_CONTINUOUS else f"{site.continuous_fraction:.0%} of the rating"
    label = site.name or f"{site.volts:g} V / {site.amps:g} A"
    return CircuitPreset(label, site.volts, site.amps, site.continuous_fraction, basis)


@dataclass(frozen=True)
class WallDraw:
    circuit: CircuitPreset
    sustained_w: float  # at the wall: DC budget / PSU_EFFICIENCY
    continuous_w: float  # the circuit's continuous rating
    transient_w: float  # DC-side transient demand (PSU rules), for the record

    @property
    def amps(self) -> float:
        return self.sustained_w / self.circuit.volts

    @property
    def overloaded(self) -> bool:
        return self.sustained_w > self.continuous_w


def wall_draw(site: str | WallCircuit, total_w: float, transient_w: float) -> WallDraw:
    c = resolve_site(site)
    return WallDraw(circuit=c, sustained_w=total_w / PSU_EFFICIENCY,
                    continuous_w=c.volts * c.amps * c.continuous_fraction, transient_w=transient_w)  # fmt: skip
