"""``python -m relreason``: the same command line as the ``relreason`` script."""

from relreason.cli import main

if __name__ == "__main__":
    main()
