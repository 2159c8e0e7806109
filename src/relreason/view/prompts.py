"""The prompt of an item whose record holds none (written before prompts were kept): rebuilt
from the run's task description and the data files, as ``relreason.report.texts`` does; each
task rebuilt once (by its description) and kept."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from relreason.errors import RelreasonError


class Prompts:
    """Rebuilt prompts by task description; ``data_dir``: where the data files are."""

    def __init__(self, data_dir: Path | None) -> None:
        self.data_dir = data_dir
        self._built: dict[str, dict[int, str] | str] = {}
        self._lock = threading.Lock()

    def prompt(self, description: dict[str, Any], index: int) -> tuple[str | None, str | None]:
        """(the prompt of item ``index``, None) or (None, why it could not be rebuilt)."""
        from relreason.run.plan import task_from_description

        key = json.dumps(description, sort_keys=True, default=str)
        with self._lock:
            if key not in self._built:
                try:
                    task = task_from_description(description, data_dir=self.data_dir)
                    self._built[key] = {item.index: item.prompt for item in task.items}
                except (RelreasonError, OSError) as error:
                    self._built[key] = str(error)
            found = self._built[key]
        if isinstance(found, str):
            return None, found
        text = found.get(index)
        return (text, None) if text is not None else (None, f"no item {index} in the task")
