"""The build sheet's job section names a vision-language job's images, tokens and tower with their sources."""

from __future__ import annotations

from configurator.engine import Build, evaluate
from configurator.report.sheet_jobs import job_section


def test_job_section_names_images_and_tower() -> None:
    build = Build.model_validate({
        "chassis": "generic-server-8", "cards": [{"slot": 1, "card": "h200-nvl"}],
        "jobs": [{"name": "vl", "model": "qwen2.5-vl-7b", "method": "lora", "sequence_length": 1024,
                  "images_per_sample": 4, "image_resolution": 1024, "cards": [1]},
                 {"name": "text", "model": "qwen2.5-7b", "method": "lora", "cards": [1]}],
    })  # fmt: skip
    result = evaluate(build)
    html = "".join(job_section(0, result.jobs[0], build.jobs[0]))
    assert "Images: 4 per sample of 1024 × 1024 px, resized to 1036 × 1036" in html
    assert "1,024 text + 5,476 image = 6,500 tokens" in html
    assert "Vision tower: 676.6 M parameters, frozen" in html and "smart_resize" in html
    text_html = "".join(job_section(1, result.jobs[1], build.jobs[1]))
    assert "Vision tower" not in text_html and "Images:" not in text_html
