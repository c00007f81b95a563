"""Imports sit at the top of their module; one inside a function says why, in a comment (issue 22 item 1).

The reasons that hold: start-up time (cli.py loads only what a command needs: ``size`` never loads Qt), an optional
extra (torch, transformers, peft, bitsandbytes in the tracer's worker and the measurement tool), a module that must
stay importable without what it loads later. The comment sits on the import's own line, or on the line just before
the first import of its contiguous block (one comment covers the block)."""

from __future__ import annotations

import ast
import io
import tokenize
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "configurator"
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
IMPORTS = (ast.Import, ast.ImportFrom)


def _statement_lists(node: ast.AST) -> list[list[ast.stmt]]:
    """The bodies of ``node`` that hold statements (a function's, an if's branches, a try's handlers, a match's
    cases ...)."""
    lists: list[list[ast.stmt]] = []
    for name in ("body", "orelse", "finalbody"):
        value = getattr(node, name, None)
        if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
            lists.append(value)
    return lists


def uncommented_function_imports(source: str) -> list[int]:
    """The line numbers of the imports inside a function (at any depth) with no comment on their lines and none
    on the line before their contiguous block of imports."""
    comment_lines = {
        token.start[0]
        for token in tokenize.generate_tokens(io.StringIO(source).readline)
        if token.type == tokenize.COMMENT
    }
    lines = source.splitlines()
    found: list[int] = []

    def commented_alone(line: int) -> bool:
        return line in comment_lines and lines[line - 1].lstrip().startswith("#")

    def visit(node: ast.AST, in_function: bool) -> None:
        in_function = in_function or isinstance(node, FUNCTIONS)
        for statements in _statement_lists(node):
            block_start: int | None = None
            for statement in statements:
                if not isinstance(statement, IMPORTS):
                    block_start = None
                    continue
                if block_start is None:
                    block_start = statement.lineno
                end = statement.end_lineno or statement.lineno
                own = any(line in comment_lines for line in range(statement.lineno, end + 1))
                if in_function and not own and not commented_alone(block_start - 1):
                    found.append(statement.lineno)
        for child in ast.iter_child_nodes(node):
            visit(child, in_function)

    visit(ast.parse(source), False)
    return sorted(found)


def test_every_function_level_import_says_why() -> None:
    """Across configurator/, an import inside a function has its reason in a comment; the others are at the top."""
    offenders = [
        f"{path.relative_to(PACKAGE.parent)}:{line}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for line in uncommented_function_imports(path.read_text(encoding="utf-8"))
    ]
    assert offenders == [], "move these to the module top, or say why in a comment:\n" + "\n".join(offenders)


def test_the_rule_catches_an_uncommented_import() -> None:
    """The check itself: a bare import in a function, in a method, in a nested branch or except clause is caught; a
    commented one, a commented block, and a module-level one are not."""
    source = (
        "import os\n"  # 1: module level, never an offender
        "\n"
        "def bare():\n"
        "    import json\n"  # 4: offender
        "    return json\n"
        "\n"
        "def commented():\n"
        "    import json  # start-up time\n"  # 8: says why on its line
        "    return json\n"
        "\n"
        "def block():\n"
        "    # optional extra: both of these\n"
        "    import json\n"  # 13: covered by line 12
        "    import csv\n"  # 14: same block
        "    x = 1\n"
        "    import re\n"  # 16: a new block without a comment: offender
        "    return json, csv, re, x\n"
        "\n"
        "class C:\n"
        "    def method(self):\n"
        "        if self:\n"
        "            from pathlib import Path\n"  # 22: offender in a nested branch of a method
        "            return Path\n"
        "        try:\n"
        "            pass\n"
        "        except ValueError:\n"
        "            import sys\n"  # 27: offender in an except clause
        "            return sys\n"
        "\n"
        "def nested():\n"
        "    def inner():\n"
        "        from os import (\n"  # 32: a multi-line import, commented on its last line
        "            path,  # the reason\n"
        "        )\n"
        "        return path\n"
        "    x = 1  # a comment on a statement before a block does not cover the block\n"
        "    import glob\n"  # 37: offender
        "    return inner, x, glob\n"
    )
    assert uncommented_function_imports(source) == [4, 16, 22, 27, 37]
