"""UI hierarchies: parse uiautomator dumps, render them for prompts, match elements across devices."""

from prorex.ui.match import match_element
from prorex.ui.parse import HierarchyError, parse_hierarchy
from prorex.ui.render import render_screen

__all__ = ["HierarchyError", "match_element", "parse_hierarchy", "render_screen"]
