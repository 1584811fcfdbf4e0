# SPDX-License-Identifier: Apache-2.0
"""Reads and drives localauth-agent-gtk's sheet through AT-SPI, as a screen reader user would.

    sheet-driver.py wait TIMEOUT TEXT...   until the sheet shows every TEXT; prints its snapshot
    sheet-driver.py gone TIMEOUT           until no sheet is shown
    sheet-driver.py press NAME             activates the button with that accessible name
    sheet-driver.py fill NAME TEXT         puts TEXT into the field with that accessible name

Snapshots are JSON: texts (every name and label text), buttons (name: sensitive), fields (names)
and focused ("role:name" of the focused object). The bus is DBUS_SESSION_BUS_ADDRESS's accessibility
bus. Exit status 1 with the last snapshot on stdout when a wait runs out.
"""
import json
import sys
import time

import gi

gi.require_version("Atspi", "2.0")
from gi.repository import Atspi  # noqa: E402

APP = "localauth-agent-gtk"


def nodes(root):
    found = []
    stack = [root]
    while stack:
        node = stack.pop()
        found.append(node)
        try:
            count = node.get_child_count()
        except Exception:
            continue
        for index in reversed(range(count)):
            child = node.get_child_at_index(index)
            if child is not None:
                stack.append(child)
    return found


def sheet():
    """The agent's frame, or None when it shows none."""
    desktop = Atspi.get_desktop(0)
    for index in range(desktop.get_child_count()):
        app = desktop.get_child_at_index(index)
        if app is None or app.get_name() != APP:
            continue
        for frame_index in range(app.get_child_count()):
            frame = app.get_child_at_index(frame_index)
            if frame is not None and frame.get_role() == Atspi.Role.FRAME:
                return frame
    return None


def has(node, state):
    return node.get_state_set().contains(state)


def snapshot(frame):
    result = {"texts": [], "buttons": {}, "fields": [], "focused": ""}
    if frame is None:
        return result
    result["texts"].append(frame.get_name())
    for node in nodes(frame):
        try:
            role = node.get_role()
            name = node.get_name() or ""
            if not has(node, Atspi.StateType.VISIBLE):
                continue
        except Exception:
            continue
        if name:
            result["texts"].append(name)
        if role == Atspi.Role.LABEL:
            text = Atspi.Text.get_text(node, 0, -1)
            if text and text != name:
                result["texts"].append(text)
        elif role == Atspi.Role.PUSH_BUTTON:
            result["buttons"][name] = has(node, Atspi.StateType.SENSITIVE)
        elif role == Atspi.Role.PASSWORD_TEXT:
            result["fields"].append(name)
        if has(node, Atspi.StateType.FOCUSED):
            result["focused"] = "%s:%s" % (node.get_role_name(), name)
    return result


def find(role, name):
    frame = sheet()
    if frame is None:
        raise SystemExit("no sheet")
    for node in nodes(frame):
        if node.get_role() == role and node.get_name() == name and has(node, Atspi.StateType.VISIBLE):
            return node
    raise SystemExit("no %s named %r in %s" % (role.value_nick, name, json.dumps(snapshot(frame))))


def main(argv):
    command = argv[1]
    if command in ("wait", "gone"):
        deadline = time.monotonic() + float(argv[2])
        wanted = argv[3:]
        while True:
            frame = sheet()
            shot = snapshot(frame)
            done = frame is None if command == "gone" else frame is not None and all(
                any(text in shown for shown in shot["texts"]) for text in wanted)
            if done:
                print(json.dumps(shot))
                return 0
            if time.monotonic() > deadline:
                print(json.dumps(shot))
                return 1
            time.sleep(0.05)
    if command == "press":
        node = find(Atspi.Role.PUSH_BUTTON, argv[2])
        node.do_action(0)
        return 0
    if command == "fill":
        node = find(Atspi.Role.PASSWORD_TEXT, argv[2])
        if not Atspi.EditableText.set_text_contents(node, argv[3]):
            raise SystemExit("the field took no text")
        return 0
    raise SystemExit("unknown command %s" % command)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
