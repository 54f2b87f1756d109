"""The command line of every Python script in scripts/ that a user runs (the shell scripts follow
the same rule with lib/arguments.sh; docs/install.md, "Scripts"): --help or -h prints the
script's usage (its docstring) and exits 0; an option it does not take, or a wrong number of
arguments, prints the usage on standard error with one line saying what is wrong and exits 2,
before anything is read or written.
"""
import os
import sys


def refuse(doc, why):
    """The usage on standard error, then `NAME: why`, and exit 2."""
    print(doc.strip(), file=sys.stderr)
    print(f"{os.path.basename(sys.argv[0])}: {why}", file=sys.stderr)
    sys.exit(2)


def arguments(doc, least, most=None, options=(), argv=None):
    """The script's arguments (argv[1:]), checked: between `least` and `most` of them (most None:
    `least` exactly; -1: any number above `least`); `options` the flags it takes, which count as
    arguments. Exits 0 with the usage for --help, 2 with it for anything else it does not take."""
    given = list(sys.argv[1:] if argv is None else argv[1:])
    if any(argument in ("-h", "--help") for argument in given):
        print(doc.strip())
        sys.exit(0)
    for argument in given:
        if argument.startswith("-") and argument != "-" and argument not in options:
            refuse(doc, f"unknown option {argument}")
    most = least if most is None else most
    if len(given) < least or (most >= 0 and len(given) > most):
        wanted = (f"{least}" if most == least else
                  f"at least {least}" if most < 0 else f"{least} to {most}")
        refuse(doc, f"takes {wanted} argument{'' if wanted == '1' else 's'}, got {len(given)}")
    return given
