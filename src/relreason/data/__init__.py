"""The official data files: where they are (``sources``), what they must be (``spec``), and
how they are fetched (``download``). Knows no benchmark by name: each benchmark package
declares its ``DataFiles``."""
