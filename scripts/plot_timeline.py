#!/usr/bin/env python3
"""Draws `vtac run --timeline` JSON as an SVG Gantt chart: one row per VTA module (load,
compute, store), one bar per instruction from its start to its end cycle, coloured by opcode,
each row labelled with the share of the cycles its module was busy (docs/timing-model.md).

Usage: plot_timeline.py TIMELINE.json OUT.svg [--title TEXT] [--width PIXELS]
Needs nothing but Python 3.
"""
import argparse
import json
from xml.sax.saxutils import escape

MODULES = ("load", "compute", "store")
COLOURS = {"LOAD": "#4e79a7", "GEMM": "#f28e2b", "ALU": "#59a14f", "STORE": "#b07aa1",
           "FINISH": "#555555"}
ROW_HEIGHT, ROW_GAP, LABEL_WIDTH, TOP, AXIS_HEIGHT, LEGEND_HEIGHT = 28, 10, 150, 34, 30, 24


def tick_step(total, ticks=8):
    """A round step (1, 2 or 5 times a power of ten) giving at most `ticks` ticks."""
    magnitude = 1
    while True:
        for step in (magnitude, 2 * magnitude, 5 * magnitude):
            if total / step <= ticks:
                return step
        magnitude *= 10


def busy_cycles(bars):
    """Cycles covered by at least one bar (a module's bars do not overlap, but be safe)."""
    covered, reach = 0, 0
    for start, end in sorted(bars):
        if end > reach:
            covered += end - max(start, reach)
            reach = end
    return covered


def render(instructions, clock_mhz, title, width):
    total = max((i["end"] for i in instructions), default=0) or 1
    duration = f", {total / clock_mhz:.1f} us at {clock_mhz} MHz" if clock_mhz else ""
    scale = (width - LABEL_WIDTH - 20) / total
    rows = {m: [i for i in instructions if i["module"] == m] for m in MODULES}
    height = TOP + len(MODULES) * (ROW_HEIGHT + ROW_GAP) + AXIS_HEIGHT + LEGEND_HEIGHT
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="10" y="20" font-size="14">{escape(title)} ({total} cycles{duration})</text>']
    for row, module in enumerate(MODULES):
        y = TOP + row * (ROW_HEIGHT + ROW_GAP)
        busy = busy_cycles([(i["start"], i["end"]) for i in rows[module]])
        out.append(f'<text x="10" y="{y + ROW_HEIGHT / 2 + 4}">{module} '
                   f'({100 * busy / total:.0f}% busy)</text>')
        out.append(f'<rect x="{LABEL_WIDTH}" y="{y}" width="{total * scale:.2f}" '
                   f'height="{ROW_HEIGHT}" fill="#eeeeee"/>')
        for i in rows[module]:
            out.append(f'<rect x="{LABEL_WIDTH + i["start"] * scale:.2f}" y="{y}" '
                       f'width="{max((i["end"] - i["start"]) * scale, 0.3):.2f}" '
                       f'height="{ROW_HEIGHT}" fill="{COLOURS.get(i["opcode"], "#999999")}">'
                       f'<title>[{i["index"]}] {i["opcode"]} {i["start"]}-{i["end"]}</title></rect>')
    axis_y = TOP + len(MODULES) * (ROW_HEIGHT + ROW_GAP)
    step = tick_step(total)
    for cycle in range(0, total + 1, step):
        x = LABEL_WIDTH + cycle * scale
        out.append(f'<line x1="{x:.2f}" y1="{axis_y - ROW_GAP}" x2="{x:.2f}" y2="{axis_y - 4}" '
                   f'stroke="black"/>')
        out.append(f'<text x="{x:.2f}" y="{axis_y + 10}" text-anchor="middle">{cycle}</text>')
    legend_y = axis_y + AXIS_HEIGHT
    for n, (opcode, colour) in enumerate(COLOURS.items()):
        x = LABEL_WIDTH + n * 90
        out.append(f'<rect x="{x}" y="{legend_y - 10}" width="12" height="12" fill="{colour}"/>')
        out.append(f'<text x="{x + 16}" y="{legend_y}">{opcode}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("timeline")
    parser.add_argument("svg")
    parser.add_argument("--title", default="VTA timeline")
    parser.add_argument("--width", type=int, default=1200)
    args = parser.parse_args()
    with open(args.timeline) as f:
        timeline = json.load(f)
    with open(args.svg, "w") as f:
        f.write(render(timeline["instructions"], timeline.get("clock_mhz", 0), args.title,
                       args.width))


main()
