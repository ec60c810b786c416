"""Times of day in English text and the zones they are stated in ("16:30 (UTC+2)", "9am PT")."""

from __future__ import annotations

from datetime import UTC, timedelta, timezone, tzinfo
from zoneinfo import ZoneInfo

__all__ = ["offset_zone", "read_clock"]

# Zone abbreviations as people write them. Named regions, not fixed offsets: "CET" in July
# means the summer time in Berlin, and the date decides which offset applies.
_ZONES = {
    "cet": "Europe/Berlin", "cest": "Europe/Berlin", "bst": "Europe/London",
    "wet": "Europe/Lisbon", "west": "Europe/Lisbon", "eet": "Europe/Athens",
    "eest": "Europe/Athens", "est": "America/New_York", "edt": "America/New_York",
    "et": "America/New_York", "ct": "America/Chicago", "mt": "America/Denver",
    "pst": "America/Los_Angeles", "pdt": "America/Los_Angeles", "pt": "America/Los_Angeles",
    "ist": "Asia/Kolkata", "jst": "Asia/Tokyo", "sgt": "Asia/Singapore",
    "hkt": "Asia/Hong_Kong", "aest": "Australia/Sydney",
}  # fmt: skip


def offset_zone(raw: str) -> timezone:
    """A fixed offset from "Z", "+02:00", "+2", "−0530"."""
    text = raw.replace("−", "-").replace(" ", "")
    if text.upper() in ("Z", ""):
        return UTC
    sign = -1 if text[0] == "-" else 1
    digits = text[1:].replace(":", "")
    hours, minutes = (int(digits[:-2]), int(digits[-2:])) if len(digits) > 2 else (int(digits), 0)
    return timezone(sign * timedelta(hours=hours, minutes=minutes))


def read_clock(g: dict[str, str]) -> tuple[int, int, tzinfo] | None:
    """(hour, minute, zone) of a matched time of day (the `clock` pattern's groups); None for
    an impossible one ("13 pm")."""
    if "hh" in g:
        hour, minute, ampm = int(g["hh"]), int(g["mi"]), g.get("ampm", "")
    else:
        hour, minute, ampm = int(g["hh12"]), 0, g.get("ampm12", "")
    if ampm:
        if hour > 12:
            return None
        hour = hour % 12 + (12 if ampm.lower().startswith("p") else 0)
    zone: tzinfo = UTC
    if "zone" in g:
        zone = ZoneInfo(_ZONES[g["zone"].lower()])
    elif "off" in g:
        zone = offset_zone(g["off"])
    return hour, minute, zone
