"""The web page's command-line options, shared by `play` and `demo`."""

from __future__ import annotations

from turtleboard.errors import UserError, install_extra

INSTALL = "the web page needs the web extra: " + install_extra("web")


def available() -> bool:
    """Is the web extra installed?"""
    try:
        import segno  # noqa: F401
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        return False
    return True


def add_arguments(p, default_on: bool = False) -> None:
    if default_on:
        p.add_argument("--no-web", dest="web", action="store_false", default=None,
                       help="no web page (by default the demo serves one when the web extra is installed)")
    else:
        p.add_argument("--web", action="store_true",
                       help="also serve the game as a web page for the phones and tablets at the table "
                            "(docs/web.md)")
    p.add_argument("--lan", action="store_true",
                   help="serve the web page to the local network (every link then carries a random "
                        "key, printed with a QR code); default: this computer only")
    p.add_argument("--web-port", type=int, default=8765, metavar="PORT",
                   help="the web page's port (default 8765; 0: any free one)")


def start(args, mirror, board_def):
    """The running WebServer for `args`, or a UserError saying what is missing."""
    if not available():
        raise UserError(INSTALL)
    if not 0 <= args.web_port <= 65535:
        raise UserError("--web-port %d: a port is 0..65535" % args.web_port)
    from turtleboard.web.server import WebServer

    web = WebServer(mirror, board_def, lan=args.lan, port=args.web_port)
    web.start()
    return web
