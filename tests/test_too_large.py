"""A data file larger than the memory available: ``pegasos train`` and ``predict`` estimate
what loading it needs before parsing it (:func:`pegasos._memory.file_footprint`), then
stream it, predict it a block at a time, or refuse at once with the numbers and the command
that trains it.  Each command runs in a child process under a real address-space limit
(``RLIMIT_AS``, which :func:`pegasos._memory.available_memory` reads): the limit is set a
few hundred MiB above what the child holds after its imports, and the file (a gzip file of
small members, 1 MB on disk) holds 150 MB of text, which loaded would take more."""

import gzip
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from pegasos._memory import file_footprint, load_bytes

resource = pytest.importorskip("resource")

#: Address space the child may take beyond what it holds after importing what the
#: commands use (the stream and a linear prediction need about 200 MiB of it: thread
#: stacks and malloc's arenas count).
MARGIN = 300 << 20

#: The child: imports, then the limit, then the command, timed.
CHILD = """
import json, resource, sys, time
import numpy, scipy.sparse, sklearn.svm  # (imported before the limit: they map hundreds of MB)
import pegasos, pegasos.cli, pegasos.linear, pegasos.stream

def vm():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024

resource.setrlimit(resource.RLIMIT_AS, (vm() + int(sys.argv[1]), resource.RLIM_INFINITY))
tic = time.perf_counter()
try:
    code = pegasos.cli.main(sys.argv[2:])
except SystemExit as exc:
    code = exc.code
print(json.dumps({"code": code, "seconds": time.perf_counter() - tic}), file=sys.stderr)
"""

ROWS_PER_MEMBER = 80 * 400
MEMBERS = 24


def _rows(seed=0):
    """80 distinct rows of 20 features (a member's text repeats them: under gzip's 32 KB
    window, so that it compresses 100x)."""
    rng = np.random.default_rng(seed)
    lines = []
    for i in range(80):
        label = 1 if i % 2 else -1
        x = rng.normal(size=20) + 0.5 * label
        lines.append(f"{label:+d} " + " ".join(f"{j + 1}:{v:.4g}" for j, v in enumerate(x))
                     + "\n")
    return "".join(lines).encode()


@pytest.fixture(scope="module")
def large(tmp_path_factory):
    """(the folder, the data file): 768,000 rows, 150 MB of text, 24 gzip members."""
    folder = tmp_path_factory.mktemp("large")
    member = gzip.compress(_rows() * 400, mtime=0)
    path = folder / "train.svm.gz"
    with open(path, "wb") as f:
        for _ in range(MEMBERS):
            f.write(member)
    return folder, path


def _run(folder, *argv, margin=MARGIN):
    """The command ``pegasos argv`` in a child under the limit: (exit code, seconds in
    main, standard output, standard error)."""
    done = subprocess.run([sys.executable, "-c", CHILD, str(margin), *argv], cwd=folder,
                          capture_output=True, text=True, timeout=600, check=False)
    last = done.stderr.strip().splitlines()[-1]
    said = json.loads(last)
    return said["code"], said["seconds"], done.stdout, done.stderr[: -len(last)]


def test_the_estimate_reads_the_beginning_and_is_near_the_file(large):
    _, path = large
    footprint = file_footprint(path)
    rows, values = ROWS_PER_MEMBER * MEMBERS, 20 * ROWS_PER_MEMBER * MEMBERS
    text = len(_rows()) * 400 * MEMBERS
    assert not footprint.exact and footprint.sampled < 32 << 20
    assert footprint.file_bytes == os.path.getsize(path)
    assert abs(footprint.text_bytes / text - 1) < 0.15  # (the ratio of the first members)
    assert abs(footprint.rows / rows - 1) < 0.15 and abs(footprint.values / values - 1) < 0.15
    assert footprint.need == load_bytes(footprint.rows, footprint.values) > MARGIN
    assert "compressed" in footprint.describe()
    small = path.parent / "small.svm"
    small.write_bytes(_rows() * 3)
    exact = file_footprint(small)
    assert exact.exact and (exact.rows, exact.values) == (240, 4800)
    assert exact.text_bytes == exact.file_bytes and exact.compression == 1.0


@pytest.mark.parametrize("options, why", [
    (["-s", "svc"], "-s svc holds its training rows in memory"),
    (["-c", "10"], "--stream, which trains without loading it, needs -l LAMBDA"),
    (["-v", "5", "-l", "0.1"], "-v (cross-validation) holds every row in memory"),
])
def test_a_file_too_large_is_refused_at_once_with_the_numbers_and_the_command(large, options,
                                                                              why):
    folder, path = large
    code, seconds, out, err = _run(folder, "train", *options, path.name)
    assert code == 1 and seconds < 1.0, (seconds, err)
    assert err.startswith(f"pegasos: error: {path.name}: loading it needs about ")
    assert "estimated from its first" in err and "compressed), more than the " in err
    assert "of memory available to this process; " + why in err
    assert "A linear model trains without loading it: pegasos train --stream -l " in err
    assert "--iter " in err and ("--holdout" in err) == ("-v" in options)
    assert not (folder / "train.svm.gz.model").exists()


@pytest.mark.slow
def test_a_file_too_large_streams_where_the_options_allow_and_predicts_by_blocks(large):
    """``-s pegasos -l``: the stream's model, as ``--stream`` gives it without the limit;
    ``predict``: a block of rows at a time, the predictions of the whole file loaded."""
    folder, path = large
    code, _, _, err = _run(folder, "train", "-q", "-l", "0.01", "--iter", "2000",
                           "--buffer-rows", "5000", path.name, "limited.model")
    assert code == 2 and "need --stream" in err  # (--buffer-rows is --stream's option)
    code, _, _, err = _run(folder, "train", "-l", "0.01", "--iter", "2000", path.name,
                           "limited.model")
    assert code == 0, err
    assert "more than the " in err and "streaming it instead (as --stream)" in err
    subprocess.run([sys.executable, "-m", "pegasos", "train", "-q", "--stream", "-l", "0.01",
                    "--iter", "2000", path.name, "free.model"], cwd=folder, check=True)
    from pegasos import load_model

    limited, free = load_model(folder / "limited.model"), load_model(folder / "free.model")
    np.testing.assert_array_equal(limited.coef_, free.coef_)
    code, _, out, err = _run(folder, "predict", path.name, "limited.model", "limited.txt")
    assert code == 0, err
    assert "predicting it a block of rows at a time" in err
    assert out.startswith("Accuracy = ") and f"/{ROWS_PER_MEMBER * MEMBERS})" in out
    subprocess.run([sys.executable, "-m", "pegasos", "predict", "-q", path.name,
                    "limited.model", "free.txt"], cwd=folder, check=True)
    assert (folder / "limited.txt").read_text() == (folder / "free.txt").read_text()
    assert len((folder / "free.txt").read_text().splitlines()) == ROWS_PER_MEMBER * MEMBERS
