"""Presentation shared by the window (ui/) and the build sheet (report/): words, numbers, colours and
geometry, Qt-free. Nothing here decides anything about a build: the engine does; this says it the same way
everywhere (the headroom label, the display unit, the palette, the slot pitch)."""
