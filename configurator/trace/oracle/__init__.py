"""The reference table's generator: traced single-card jobs over the model families in specs/trace/configs/
(``make oracle``; needs the ``trace`` extra). The table itself is data: specs/trace/table.jsonl."""
