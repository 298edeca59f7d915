"""Every option has a help line and every subcommand a description (`citeledger X --help`)."""

from __future__ import annotations

import argparse

from citeledger.cli import _parser


def _walk(parser: argparse.ArgumentParser, name: str) -> list[str]:
    missing = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub_name, sub in action.choices.items():
                if not sub.description:
                    missing.append(f"{name} {sub_name}: no description")
                missing += _walk(sub, f"{name} {sub_name}")
        elif not action.help and action.dest != "help":
            missing.append(f"{name} {'/'.join(action.option_strings) or action.dest}: no help")
    return missing


def test_every_option_has_help_and_every_subcommand_a_description() -> None:
    assert _walk(_parser(), "citeledger") == []


def test_the_ledger_help_shows_its_real_default(capsys: object) -> None:
    text = _parser()._subparsers._group_actions[0].choices["quote"].format_help()  # type: ignore[union-attr]
    assert "citeledger.yaml" in text and "--locator" in text
