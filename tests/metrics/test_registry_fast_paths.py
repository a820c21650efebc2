"""The registry's fast paths give what the plain code gives: `MetricValue.but`, the copy the
metrics stage builds its values with, the value `dataclasses.replace` gives, field for field, for
any field changed; `MetricSet.of`, the values of one metric, what a scan of all values finds."""

from __future__ import annotations

import dataclasses
import itertools
from pathlib import Path
from typing import Any, ForwardRef

import pytest

from reportgen.article.rundata import article_metrics
from reportgen.metrics.registry import MetricChanges, MetricSet, MetricValue

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def metrics() -> MetricSet:
    """The metrics of an article with repetitions, gates and derived values, in all their
    shapes, computed once for the module: every test here only reads them."""
    return article_metrics(ROOT / "tests" / "articles" / "repetitions")[1]


def test_the_changes_it_takes_are_the_fields_with_their_types() -> None:
    fields = {f.name: f.type for f in dataclasses.fields(MetricValue) if f.init}
    typed = {
        name: kind.__forward_arg__ if isinstance(kind, ForwardRef) else kind
        for name, kind in MetricChanges.__annotations__.items()
    }
    assert typed == fields
    assert all(f.init for f in dataclasses.fields(MetricValue))
    assert not hasattr(MetricValue, "__post_init__") and not hasattr(MetricValue, "__slots__")


def _same(a: MetricValue, b: MetricValue) -> None:
    assert a == b and hash(a) == hash(b) and repr(a) == repr(b)
    assert vars(a) == vars(b) and list(vars(a)) == list(vars(b))  # resamples is not compared


def test_each_field_changed_is_the_value_replace_gives(metrics: MetricSet) -> None:
    """One value of each shape the article gives (its source, gate, repetitions, statistic),
    each given every field of the next."""
    shapes: dict[tuple[object, ...], MetricValue] = {}
    for v in metrics.values:
        shapes.setdefault((v.source, v.gate is not None, bool(v.repeats), v.stat), v)
    assert len(shapes) > 10, shapes.keys()  # the article gives values of many shapes
    values = list(shapes.values())
    names = [f.name for f in dataclasses.fields(MetricValue)]
    for a, b in itertools.pairwise([*values, values[0]]):
        for name in names:
            change: dict[str, Any] = {name: getattr(b, name)}
            _same(a.but(**change), dataclasses.replace(a, **change))
        _same(a.but(**vars(b)), b)
        _same(a.but(), a)


def test_several_fields_at_once_and_the_original_is_untouched(metrics: MetricSet) -> None:
    a = metrics.values[0]
    before = dict(vars(a))
    changes: dict[str, Any] = {
        "id": "x.y",
        "value": -1.5,
        "gate": None,
        "repeats": (("f", 1.0),),
        "resamples": (2.0,),
    }
    changed = a.but(**changes)
    _same(changed, dataclasses.replace(a, **changes))
    assert changed.resamples == (2.0,) and a.resamples == before["resamples"]
    assert vars(a) == before
    with pytest.raises(dataclasses.FrozenInstanceError):
        changed.value = 0.0  # type: ignore[misc]


def test_a_name_that_is_not_a_field_is_refused_as_replace_refuses_it(metrics: MetricSet) -> None:
    a = metrics.values[0]
    typo: dict[str, Any] = {"valeu": 1.0}
    with pytest.raises(TypeError, match="no field valeu"):
        a.but(**typo)
    with pytest.raises(TypeError):
        dataclasses.replace(a, **typo)


def test_the_values_of_a_metric_are_those_a_scan_finds_in_order(metrics: MetricSet) -> None:
    names = {v.metric for v in metrics.values}
    assert len(names) > 20
    for name in [*sorted(names), "decode.no_such_metric", "decode.ttft_s.p99"]:
        scanned = tuple(v for v in metrics.values if v.metric == name)
        assert metrics.of(name) == scanned
        assert all(a is b for a, b in zip(metrics.of(name), scanned, strict=True))


def test_a_set_made_from_another_indexes_its_own_values(metrics: MetricSet) -> None:
    """`dataclasses.replace` of an indexed set with other values (as tests and lints make them)
    must not answer from the first set's index."""
    first = metrics.values[0]
    assert metrics.of(first.metric) and metrics.get(first.id) is first  # both indexes built
    fewer: MetricSet = dataclasses.replace(
        metrics, values=tuple(v for v in metrics.values if v.metric != first.metric)
    )
    assert fewer.of(first.metric) == () and fewer.get(first.id) is None
    assert fewer.find(first.metric) is None and metrics.find(first.metric) is not None
