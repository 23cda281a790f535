"""A callable that records the arguments of every call (a stand-in for signal slots)."""


class Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def __call__(self, *args) -> None:
        self.calls.append(args)
