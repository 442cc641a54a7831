"""Start-up time of the command line: what a user waits before the first byte is read.

``pegasos --help``, ``--version`` and a usage error import only the standard
library (the package's public names load on first use); a command that fits or
predicts then loads NumPy, SciPy, scikit-learn and Numba.  Each command runs in
a fresh process (``sys.executable -m pegasos`` and the installed console
script); reported: the median, min and max wall time of the repeats, and, for
context, the time to import everything a fit needs.

Usage::

    python -m benchmarks.startup [--quick] [--repeats 3]

Writes ``benchmarks/results/startup.{json,md}``.
"""

import shutil
import subprocess
import sys
import time

from .common import environment_markdown, run_part, spread

COMMANDS = {
    "pegasos --help": ["--help"],
    "pegasos --version": ["--version"],
    "pegasos train --bogus (usage error)": ["train", "--bogus"],
    "pegasos train -s 3 (LIBLINEAR number)": ["train", "-s", "3", "x"],
}
FULL_IMPORT = "import pegasos; pegasos.PegasosClassifier; pegasos.SBPClassifier"


def _time(argv, repeats):
    seconds = []
    for _ in range(repeats):
        tic = time.perf_counter()
        subprocess.run(argv, capture_output=True, check=False)
        seconds.append(time.perf_counter() - tic)
    return spread(seconds)


def bench(name, *, data_dir, repeats, quick):
    repeats = max(repeats, 3 if quick else 10)
    script = shutil.which("pegasos")
    rows = []
    for label, args in COMMANDS.items():
        row = {"command": label,
               "module_seconds": _time([sys.executable, "-m", "pegasos", *args], repeats)}
        if script:
            row["script_seconds"] = _time([script, *args], repeats)
        rows.append(row)
    python = _time([sys.executable, "-c", "pass"], repeats)
    full = _time([sys.executable, "-c", FULL_IMPORT], repeats)
    return {"dataset": name, "repeats": repeats, "commands": rows,
            "python_seconds": python, "full_import_seconds": full}


def markdown(result):
    (d,) = result["datasets"]
    lines = [
        "# Start-up time of the command line",
        "",
        f"Medians of {d['repeats']} fresh processes (min-max). A bare `python -c pass` takes "
        f"{d['python_seconds']['median']:.3f} s; importing what a fit needs "
        f"(`{FULL_IMPORT}`) takes {d['full_import_seconds']['median']:.2f} s.",
        "",
        "| command | `python -m pegasos` (s) | console script (s) |",
        "|---|---:|---:|",
    ]
    for row in d["commands"]:
        m = row["module_seconds"]
        s = row.get("script_seconds")
        script = f"{s['median']:.3f} ({s['min']:.3f}-{s['max']:.3f})" if s else "not installed"
        lines.append(f"| {row['command']} | {m['median']:.3f} ({m['min']:.3f}-{m['max']:.3f}) | "
                     f"{script} |")
    return "\n".join(lines + [""] + environment_markdown(result["environment"])) + "\n"


def main(argv=None):
    return run_part(argv, doc=__doc__, stem="startup", datasets=["cli"], bench=bench,
                    markdown=markdown)


if __name__ == "__main__":
    sys.exit(main())
