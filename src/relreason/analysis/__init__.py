"""Analyses over run folders: runs beside the papers' figures (``paper``), two runs item by
item (``compare``)."""
