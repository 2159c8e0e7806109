"""The viewer's web application (Starlette, pages from Jinja2 templates with autoescape: model
output is untrusted and always shown as text). Pages: the runs table (``/``), a run's item
browser with filters (``/run?id=``), one item (``/item?run=&index=``) and two runs side by side
(``/compare?a=&b=``). Everything it serves comes from the package (no CDN: works offline)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlencode

from jinja2 import Environment, PackageLoader
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from relreason.view.items import (
    Filters,
    agreement,
    facets,
    label_values,
    pair_records,
    readings_differ,
)
from relreason.view.prompts import Prompts
from relreason.view.runs import RunFolders

PAGE_SIZE = 50
"""Items per page of the item browser and the comparison."""
_HEADERS = {
    # the pages run only the package's own script: an injected one would not run anyway
    "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; "
    "img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",  # a run in progress: every reload reads it again
}
T = TypeVar("T")


def _fmt_logprob(value: float | None) -> str:
    return "-inf" if value is None else f"{value:.3f}"


def _probability(value: float | None) -> str:
    return "0" if value is None else f"{math.exp(value):.3f}"


def _environment() -> Environment:
    env = Environment(loader=PackageLoader("relreason.view", "templates"), autoescape=True)
    env.filters["logprob"] = _fmt_logprob
    env.filters["prob"] = _probability
    env.filters["differ"] = readings_differ
    env.filters["label"] = lambda value: ", ".join(label_values(value)) or str(value)
    env.globals["urlencode"] = urlencode
    env.globals["query_with"] = query_with
    return env


def _page(items: Sequence[T], page: int) -> tuple[list[T], int, int]:
    """(the items of page ``page``, that page clamped, the number of pages)."""
    pages = max(1, math.ceil(len(items) / PAGE_SIZE))
    page = min(max(page, 1), pages)
    return list(items[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]), page, pages


def _int(value: str | None, default: int) -> int:
    try:
        return int(value) if value is not None else default
    except ValueError:
        return default


class _Pages:
    """The viewer's pages over the runs below ``folder``; each a plain function of a request."""

    def __init__(self, folder: Path, data_dir: Path | None) -> None:
        self.folder = folder
        self.folders = RunFolders(folder)
        self.prompts = Prompts(data_dir)
        self.env = _environment()

    def render(self, name: str, status: int = 200, **values: Any) -> HTMLResponse:
        text = self.env.get_template(name).render(root=str(self.folder), **values)
        return HTMLResponse(text, status_code=status, headers=_HEADERS)

    def missing(self, what: str) -> HTMLResponse:
        return self.render("missing.html", status=404, what=what)

    def runs(self, request: Request) -> HTMLResponse:
        return self.render("runs.html", runs=self.folders.runs())

    def run(self, request: Request) -> HTMLResponse:
        wanted = request.query_params.get("id", "")
        run = self.folders.run(wanted)
        if run is None:
            return self.missing(f"no run {wanted!r} below {self.folder}")
        found = facets(run.records)
        filters = Filters.from_query(request.query_params, found)
        kept = [r for r in run.records if filters.keep(r)]
        shown, page, pages = _page(kept, _int(request.query_params.get("page"), 1))
        return self.render(
            "run.html",
            run=run,
            runs=self.folders.runs(),
            facets=found,
            filters=filters,
            query=filters.query(),
            n_kept=len(kept),
            records=shown,
            page=page,
            pages=pages,
        )

    def item(self, request: Request) -> HTMLResponse:
        run = self.folders.run(request.query_params.get("run", ""))
        index = _int(request.query_params.get("index"), -1)
        record = None if run is None else run.record(index)
        if run is None or record is None:
            return self.missing(f"no item {index} in run {request.query_params.get('run', '')!r}")
        prompt, why = record.prompt, None
        if prompt is None:
            prompt, why = self.prompts.prompt(run.description, record.index)
        # previous and next among the items the browser's filters keep (this one included)
        filters = Filters.from_query(request.query_params, facets(run.records))
        indexes = [r.index for r in run.records if r is record or filters.keep(r)]
        where = indexes.index(record.index)
        return self.render(
            "item.html",
            run=run,
            record=record,
            prompt=prompt,
            prompt_problem=why,
            query=filters.query(),
            previous=indexes[where - 1] if where > 0 else None,
            next=indexes[where + 1] if where + 1 < len(indexes) else None,
        )

    def compare(self, request: Request) -> HTMLResponse:
        query = request.query_params
        a, b = self.folders.run(query.get("a", "")), self.folders.run(query.get("b", ""))
        if a is None or b is None:
            name = query.get("a" if a is None else "b", "")
            return self.missing(f"no run {name!r} below {self.folder}")
        pairs = pair_records(a.records, b.records)
        only_differ = query.get("differ", "") == "1"
        kept = [p for p in pairs if p.differ] if only_differ else pairs
        shown, page, pages = _page(kept, _int(query.get("page"), 1))
        return self.render(
            "compare.html",
            a=a,
            b=b,
            pairs=shown,
            counts=agreement(pairs),
            only_differ=only_differ,
            n_kept=len(kept),
            page=page,
            pages=pages,
        )


def make_app(
    folder: Path, data_dir: Path | None = None, hosts: Sequence[str] = ("*",)
) -> Starlette:
    """The viewer over the runs below ``folder`` (``data_dir``: the data to rebuild the prompts
    of records that hold none), answering only requests whose Host header is one of ``hosts``
    (a web page elsewhere that points its own name at 127.0.0.1 is refused)."""
    pages = _Pages(folder, data_dir)
    # the pages are plain functions: Starlette runs them in its thread pool, so reading a run's
    # files never holds up the event loop
    static = Path(__file__).parent / "static"
    return Starlette(
        routes=[
            Route("/", pages.runs),
            Route("/run", pages.run),
            Route("/item", pages.item),
            Route("/compare", pages.compare),
            Mount("/static", StaticFiles(directory=static), name="static"),
        ],
        middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=list(hosts))],
    )


def query_with(query: Mapping[str, str], **changes: Any) -> str:
    """``query`` with ``changes`` as a URL query (a change to "" drops the parameter)."""
    merged = {**query, **{k: str(v) for k, v in changes.items()}}
    return urlencode({k: v for k, v in merged.items() if v})
