"""Every ``--help`` entry has text, and the commands' help ends with examples and exit codes."""

from __future__ import annotations

import argparse

import pytest

from ptxlint.cli import build_parser, main


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _all() -> list[tuple[str, argparse.ArgumentParser]]:
    top = build_parser()
    return [("ptxlint", top), *((f"ptxlint {n}", p) for n, p in _subparsers(top).items())]


@pytest.mark.parametrize("name,parser", _all(), ids=[n for n, _ in _all()])
def test_every_option_has_help_text(name: str, parser: argparse.ArgumentParser) -> None:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for choice in action._choices_actions:
                assert choice.help and choice.help.strip(), f"{name}: command {choice.dest}"
            continue
        if action.help == argparse.SUPPRESS:
            continue
        label = "/".join(action.option_strings) or action.dest
        assert action.help and action.help.strip(), f"{name}: {label} has no help text"


@pytest.mark.parametrize("command", ["ptxlint", "ptxlint check", "ptxlint stats",
                                     "ptxlint rule"])
def test_epilog_has_examples_and_exit_codes(command: str) -> None:
    parser = dict(_all())[command]
    epilog = parser.epilog or ""
    assert "examples:" in epilog and "exit codes:" in epilog, command
    assert issubclass(parser.formatter_class, argparse.RawDescriptionHelpFormatter)  # the layout


def test_help_prints(capsys) -> None:
    with pytest.raises(SystemExit) as done:
        main(["check", "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert "--stdin-filename" in out and "exit codes:" in out and "2  usage" in out


def test_the_command_list_is_the_parser_s() -> None:
    """``cli.COMMANDS`` (which main reads before it builds a parser) names every command."""
    from ptxlint.cli import COMMANDS

    assert tuple(_subparsers(build_parser())) == COMMANDS


def test_the_check_only_parser_reads_check_as_the_whole_parser_does() -> None:
    argv = ["check", "k.cu", "--no-cache", "--select", "PTX001", "-j", "2", "--format", "json"]
    assert build_parser(only_check=True).parse_args(argv) == build_parser().parse_args(argv)
