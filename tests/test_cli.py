"""The command line: ``pegasos demo``."""

import json

import pytest

from pegasos.cli import main


@pytest.mark.parametrize("dataset", ["breast_cancer", "digits"])
def test_demo_json(dataset, capsys):
    assert main(["demo", "--dataset", dataset, "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    by_solver = {r["solver"]: r for r in summary["results"]}
    assert set(by_solver) == {"pegasos", "liblinear (exact, tol=1e-6)", "sgd", "sgd averaged"}
    exact = by_solver["liblinear (exact, tol=1e-6)"]
    peg = by_solver["pegasos"]
    assert peg["test_accuracy"] >= exact["test_accuracy"] - 0.02
    # the certificate bounds Pegasos' suboptimality against the exact solver
    assert summary["pegasos_duality_gap"] >= peg["objective"] - exact["objective"]
    assert summary["C"] == pytest.approx(1.0)


def test_demo_table(capsys):
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "breast cancer" in out and "pegasos" in out and "duality-gap certificate" in out


def test_demo_rejects_bad_lambda(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["demo", "--lam", "-1"])
    assert exc.value.code == 2
    assert "--lam must be > 0; got -1.0" in capsys.readouterr().err
