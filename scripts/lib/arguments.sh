# shellcheck shell=bash
# The command line of every shell script in scripts/ that a user runs (the Python scripts follow the
# same rule with script_arguments.py; docs/install.md, "Scripts"), sourced first thing:
#
#   --help (or -h)   prints the script's usage (its header comment) and exits 0, before anything is
#                    built, started or written;
#   anything else the script does not take (an unknown flag, an argument too many) prints the
#                    usage on standard error with one line saying what is wrong and exits 2.
#
#   source "$(dirname "$0")/lib/arguments.sh"
#   no_arguments "$@"      # a script whose settings are environment variables
#   help_asked "$@"        # --help before any `--`: the usage, exit 0 (the script checks the rest)
#   refuse "WHY"           # the usage on standard error, "NAME: WHY", exit 2

# script_usage: the header comment of the script being run, from its second line to the line
# before `set -euo pipefail` (#SBATCH directives left out).
script_usage() {
  sed -n '2,/^set -euo/p' "$0" | sed '/^set -euo/d; /^#SBATCH/d; s/^# \{0,1\}//'
}

refuse() {
  script_usage >&2
  echo "$(basename "$0"): $*" >&2
  exit 2
}

help_asked() {
  local argument
  for argument in "$@"; do
    case $argument in
      --) return 0 ;;
      -h | --help) script_usage; exit 0 ;;
    esac
  done
}

no_arguments() {
  help_asked "$@"
  [ $# -eq 0 ] || refuse "unknown argument '$1': this script takes no arguments (any settings" \
                         "are environment variables, listed above)"
}
