#!/usr/bin/env python3
"""Writes a man page (roff) for one of the programs from its own --help: every command, as the
program prints it, so the page never disagrees with the binary it ships with.

Usage: manpage.py PROGRAM VERSION > PROGRAM.1
"""
import json
import subprocess
import sys


def run(argv):
    return subprocess.run(argv, check=True, capture_output=True, text=True).stdout


def roff(text):
    # Lines starting with . or ' are requests to roff; backslashes are escapes.
    out = []
    for line in text.rstrip().splitlines():
        line = line.replace("\\", "\\e")
        if line.startswith((".", "'")):
            line = "\\&" + line
        out.append(line)
    return "\n".join(out)


def commands(tool, path=()):
    yield path, tool
    for sub in tool.get("subcommands", []) or []:
        if sub["commandName"] == "help":
            continue
        yield from commands(sub, path + (sub["commandName"],))


def main():
    program, version = sys.argv[1], sys.argv[2]
    name = program.rsplit("/", 1)[-1]
    tool = json.loads(run([program, "--experimental-dump-help"]))["command"]
    print(f'.TH {name.upper()} 1 "" "{name} {version}" "BeaconPresence"')
    print(".SH NAME")
    print(f"{name} \\- {roff(tool.get('abstract', ''))}")
    print(".SH SYNOPSIS")
    print(f".B {name}")
    print("\\fICOMMAND\\fR [\\fIOPTIONS\\fR]")
    print(".SH DESCRIPTION")
    print("Each command below as \\fB--help\\fR prints it.")
    print("Configuration: \\fI/etc/presence/" + name + ".yaml\\fR (every key documented in the file);")
    print("service: \\fB" + name + ".service\\fR; logs: \\fBjournalctl -u " + name + "\\fR.")
    for path, _ in commands(tool):
        title = " ".join((name,) + path)
        print(".SH " + ("COMMAND " + " ".join(path) if path else "USAGE").upper())
        print(".nf")
        print(roff(run([program, *path, "--help"])))
        print(".fi")
    print(".SH SEE ALSO")
    print("/usr/share/doc/" + name + "/README.md")


main()
