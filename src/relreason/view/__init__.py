"""``relreason view``: a local web viewer over a folder of runs, read as they are written — the
runs table, a run's items with filters (status, correct, the two readings differing, labels such
as relation, category, language and hops), one item's prompt, output, readings and
log-probabilities, and two runs side by side. Served on 127.0.0.1 by uvicorn (the ``view``
extra: starlette, uvicorn, jinja2); nothing is fetched from elsewhere.

    >>> from relreason.view import make_app, serve
    >>> serve("runs", port=8765)  # until Ctrl-C
"""

from __future__ import annotations

import socket
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from relreason.errors import UsageError
from relreason.install import extra_hint

if TYPE_CHECKING:
    from starlette.applications import Starlette


LOOPBACK = ("127.0.0.1", "localhost", "::1")
"""The names of this machine a request may give when the viewer listens on one of them."""


def make_app(
    folder: Path | str, data_dir: Path | str | None = None, hosts: Sequence[str] = ("*",)
) -> Starlette:
    """The viewer's ASGI application over the runs below ``folder``, answering requests for the
    host names ``hosts`` only."""
    from relreason.view.app import make_app as build

    return build(Path(folder), None if data_dir is None else Path(data_dir), hosts)


def serve(
    folder: Path | str,
    *,
    host: str = "127.0.0.1",
    port: int = 8765,
    data_dir: Path | str | None = None,
) -> None:
    """Serve the viewer over the runs below ``folder`` until stopped (Ctrl-C or SIGTERM);
    ``port`` 0 takes a free port (the printed address says which).

    Raises ``UsageError`` when ``folder`` is not a folder or the view extra is missing.
    """
    root = Path(folder)
    if not root.is_dir():
        raise UsageError(f"{root} is not a folder (give the folder your runs are written to)")
    try:
        import jinja2  # noqa: F401
        import starlette  # noqa: F401
        import uvicorn
    except ImportError as error:
        hint = extra_hint("view")
        raise UsageError(f"relreason view needs the 'view' extra ({error}): {hint}") from None
    listener = _listen(host, port)
    # on this machine only: a request naming another host (a page elsewhere whose name was
    # pointed at 127.0.0.1, DNS rebinding) is refused
    hosts = [*LOOPBACK, f"[{LOOPBACK[2]}]"] if host in LOOPBACK else ["*"]
    app = make_app(root, data_dir, hosts)
    config = uvicorn.Config(app, log_level="warning", access_log=False)
    bound = listener.getsockname()[1]
    where = f"[{host}]" if ":" in host else host
    print(f"relreason view: http://{where}:{bound}/ over {root} (Ctrl-C to stop)", flush=True)
    try:
        uvicorn.Server(config).run(sockets=[listener])
    finally:
        listener.close()


def _listen(host: str, port: int) -> socket.socket:
    """A socket listening on ``host``:``port`` (0: a free port); ``UsageError`` saying why not."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((host, port))
        listener.listen(128)
    except OSError as error:
        listener.close()
        why = error.strerror or str(error)
        raise UsageError(f"cannot listen on {host}:{port} ({why}); choose another --port") from None
    return listener


__all__ = ["LOOPBACK", "make_app", "serve"]
