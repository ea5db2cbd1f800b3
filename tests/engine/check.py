# Helpers for engine tests that run under CPython (pytest) and MicroPython.


def raises(exc_type, fn, *args):
    # Calls fn(*args); it must raise exc_type. Returns the exception.
    try:
        fn(*args)
    except exc_type as e:
        return e
    raise AssertionError("%s was not raised" % exc_type.__name__)


def play(game, texts):
    # Applies actions given as text (a list or one space-separated string).
    if isinstance(texts, str):
        texts = texts.split()
    for t in texts:
        game.apply_text(t)
    return game
