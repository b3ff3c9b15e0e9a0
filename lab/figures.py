"""Draw every figure of the tutorial with matplotlib, into docs/img/.

    python3 -m lab.figures           draw everything into docs/img/
    python3 -m lab.figures --check   draw, but write nothing; exit 1 if a committed file differs

The write-ups' figures (fig-*.svg) draw what a warp or block touches, from the kernels' own index arithmetic
(the notes under "index arithmetic" in lab/figures.py); the plots (<gpu>-ladder, <gpu>-sizes), from the float32
steps' rows of docs/results/<gpu>.csv. A fixed SVG hash salt and no dates keep the files byte for byte the same.
"""

from __future__ import annotations

import colorsys
import csv
import functools
import io
import itertools
import math
import sys

import matplotlib
from matplotlib.collections import LineCollection
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, Patch, Rectangle

from lab import machine, results, schema

IMG = schema.ROOT / "docs" / "img"
STYLE = {
    "svg.hashsalt": "transpose",      # the ids in an SVG, the same on every run
    "svg.fonttype": "none",           # text stays text: small files, no glyph outlines
    "font.family": "sans-serif", "font.size": 9, "font.sans-serif": ["DejaVu Sans", "Arial", "Helvetica"],
    "font.monospace": ["DejaVu Sans Mono", "Menlo", "Consolas"], "axes.spines.top": False, "axes.spines.right": False,
    "axes.axisbelow": True, "grid.color": "#dddddd",
}
METADATA = {"Date": None, "Creator": "python3 -m lab.figures (do not edit by hand)"}

# ---------------------------------------------------------------- hardware facts

WARP = 32               # threads per warp
FLOAT = 4               # sizeof(float)
FLOAT4 = 16             # sizeof(float4): one 16-byte chunk
SECTOR = 32             # global memory moves in 32-byte sectors
BANKS = 32              # shared memory: 32 banks of 4 bytes
H200_SMS = 132          # multiprocessors of an H200
THREADS_PER_SM = 2048   # sm_90: 64 resident warps
ROWS = COLS = 8192      # the shape a figure uses when it needs one
CHUNK = FLOAT4 // FLOAT             # floats in a 16-byte chunk
SECTOR_FLOATS = SECTOR // FLOAT     # floats in a sector
TILE64 = 64             # the side of the tile of steps 09-12

# ---------------------------------------------------------------- colours and sizes

INK, MUTED, GRID, EMPTY = "#1f2328", "#57606a", "#afb8c1", "#ffffff"
GOOD, BAD = "#1a7f37", "#cf222e"
HIGHLIGHT, HIGHLIGHT_TEXT, FADED, UNIT_FILL = "#f6a04d", "#9a4a00", "#eef0f3", "#eef2f6"
PALETTE = ["#9ad0f5", "#ffc078", "#a9e4a1", "#f7a8c4", "#c9b6ef", "#ffe58f", "#8fdbd0", "#ffa59e"]
TITLE, TEXT, SMALL = 12, 9, 7
UNIT = 0.22             # inches per drawing unit: a lane, a bank, a word
WIDTH = 40              # drawing units across every explanatory figure
MARGIN = 0.6            # left margin, in units
X0 = 7                  # left edge of lane strips and bank grids (their row labels sit left of it)
ROW_H = 0.8             # height of a wavefront row in a bank grid


def lane_colour(lane):
    """A light colour per lane, running through the hues from lane 0 to 31."""
    return colorsys.hls_to_rgb(0.83 * lane / WARP, 0.80, 0.70)


def plural(n, word):
    """'1 sector', '2 sectors'."""
    return f"{n} {word}" + ("" if n == 1 else "s")


# ---------------------------------------------------------------- index arithmetic
# Steps 01-08 index inside their kernels: each function below repeats the lines of the kernel it names (change both
# together).
# Steps 09-13 index in functions that tests/index_maps.cu plays on the host into docs/img/index-maps.csv
# (make figures), which played() reads. Lanes: CUDA numbers a block's threads x-fastest,
# tid = threadIdx.y * blockDim.x + threadIdx.x, and a warp is 32 consecutive tid.


def lanes(warp, block_x):
    """(threadIdx.x, threadIdx.y) of the 32 lanes of a warp in a block block_x threads wide, lane 0 first."""
    for tid in range(warp * WARP, warp * WARP + WARP):
        yield tid % block_x, tid // block_x


def naive(tx, ty, rows=ROWS, cols=COLS):
    """steps/01_naive/naive.cu, transpose_naive(), block (0, 0): (in, out) index of thread (tx, ty)."""
    row = ty                      # tile_y * BLOCK_ROWS + threadIdx.y
    col = tx                      # tile_x * BLOCK_COLS + threadIdx.x
    return row * cols + col, col * rows + row


def coalesced_write(tx, ty, rows=ROWS, cols=COLS):
    """steps/02_coalesced_write/coalesced_write.cu (and 03_ldg/ldg.cu), block (0, 0): (in, out) index of (tx, ty)."""
    out_row = ty                  # tile_y * BLOCK_ROWS + threadIdx.y = column of in
    out_col = tx                  # tile_x * BLOCK_COLS + threadIdx.x = row of in
    return out_col * cols + out_row, out_row * rows + out_col


QUAD = 4   # steps/05_float4/float4.cu: QUAD; BLOCK_QUADS_X 8, BLOCK_QUADS_Y 32


def float4_quad(tx, ty, i, rows=ROWS, cols=COLS):
    """steps/05_float4/float4.cu, transpose_float4(), block (0, 0): float4 index of load i and of store i."""
    qr, qc = tx, ty               # quads down in, quads along a row of in
    return (qr * QUAD + i) * (cols // QUAD) + qc, (qc * QUAD + i) * (rows // QUAD) + qr


def tile_elements(tx, ty, block_rows, i=0):
    """steps/06_shared/shared.cu (and 07, 08): (row, col) of the tile thread (tx, ty) writes, then reads."""
    written = ty + i * block_rows, tx   # the load loop: tile[threadIdx.y + i * BLOCK_ROWS][threadIdx.x] = ...
    read = tx, ty + i * block_rows      # the store loop: ... = tile[threadIdx.x][threadIdx.y + i * BLOCK_ROWS]
    return written, read


WORD_OF = {   # the shared word of tile element (r, c) in the float tile of steps 06, 07 and 08
    "06": lambda r, c, tile: r * tile + c,              # steps/06_shared/shared.cu: float tile[TILE][TILE]
    "07": lambda r, c, tile: r * (tile + 1) + c,        # steps/07_shared_padded: tile[TILE][TILE + TILE_PADDING]
    "08": lambda r, c, tile: r * tile + (c ^ r),        # steps/08_shared_swizzle: tile[r][swizzled_col(r, c)]
}
INDEX_MAPS = IMG / "index-maps.csv"


@functools.cache
def played(kind):
    """{(i, j): value} of one map of docs/img/index-maps.csv; tests/index_maps.cu says what i, j and value are."""
    with open(INDEX_MAPS, newline="") as file:
        return {(int(row["i"]), int(row["j"])): int(row["value"]) for row in csv.DictReader(file) if row["map"] == kind}


def table(kind):
    """{i: [value, ... in the order of j]} of one map."""
    rows = {}
    for (i, _), value in sorted(played(kind).items()):
        rows.setdefault(i, []).append(value)
    return rows


def per_lane(kind):
    """The values of a map whose i is a lane, lane 0 first."""
    return [values[0] for values in table(kind).values()]


# ---------------------------------------------------------------- what the hardware does


def sectors_of(accesses):
    """{sector: [(lane, first word in it, words)]} of one warp instruction's (lane, byte, size)."""
    sectors = {}
    for lane, address, size in accesses:
        word = address % SECTOR // FLOAT
        sectors.setdefault(address // SECTOR, []).append((lane, word, size // FLOAT))
    return dict(sorted(sectors.items()))


def wavefronts(places, width=1):
    """How shared memory serves a warp's access to places: one (lane group, {first bank: [lanes]}) per wavefront."""
    # 4-byte words (width 1): the whole warp at once, word w in bank w % 32. 16-byte chunks (width 4, the model of
    # the step 09 write-up): a quarter-warp at a time, chunk slot s in banks 4 (s % 8) .. 4 (s % 8) + 3.
    groups = [range(WARP)] if width == 1 else [range(q * 8, q * 8 + 8) for q in range(4)]
    served = []
    for group, group_lanes in enumerate(groups):      # lane groups are served one after another
        rows, seen = [], {}
        for lane in group_lanes:
            bank = places[lane] % BANKS if width == 1 else places[lane] % (BANKS // 4) * 4
            in_bank = seen.setdefault(bank, {})     # a bank moves one distinct word (or chunk) per wavefront
            wave = in_bank.setdefault(places[lane], len(in_bank))
            rows += [{} for _ in range(wave + 1 - len(rows))]
            rows[wave].setdefault(bank, []).append(lane)
        served += [(group, row) for row in rows]
    return served


# ---------------------------------------------------------------- drawing helpers


class Canvas:
    """A figure drawn in cells, WIDTH units across, y growing down; `y`, the cursor, is where the next line goes."""

    def __init__(self, title):
        """An empty figure with its title; the cursor goes under it."""
        self.fig = Figure()
        self.ax = self.fig.add_axes((0, 0, 1, 1))
        self.ax.set_axis_off()
        self.text(MARGIN, 1.1, title, size=TITLE, weight="bold")
        self.y = 2.5

    def text(self, x, y, string, size=TEXT, color=INK, **style):
        """Text centred vertically on y."""
        self.ax.text(x, y, string, fontsize=size, va="center", color=color, **style)

    def label(self, x, y, string, **style):
        """A row's name, ending just left of the grid or strip at x."""
        self.text(x - 0.3, y, string, size=SMALL, ha="right", **style)

    def line(self, string, size=SMALL, x=MARGIN, step=1.0, **style):
        """A line of text at the cursor, which then moves down by step."""
        self.text(x, self.y, string, size=size, **style)
        self.y += step

    def heading(self, heading, detail=None):
        """A panel's heading in bold, and a muted line under it."""
        self.line(heading, size=TEXT, weight="bold", step=0.9)
        if detail:
            self.line(detail, color=MUTED, step=1.1)

    def verdict(self, string, good):
        """The panel's conclusion, in green when good, red when not."""
        self.line(string, size=TEXT, weight="bold", color=GOOD if good else BAD, step=1.5)

    def cell(self, x, y, w, h, fill, label=None, edge=GRID, size=SMALL):
        """A filled cell, its label centred in it."""
        self.ax.add_patch(Rectangle((x, y), w, h, facecolor=fill, edgecolor=edge, linewidth=0.6, clip_on=False))
        if label is not None:
            self.text(x + w / 2, y + h / 2, label, size=size, ha="center")

    def strip(self, label, fills, texts=(), w=1.0, h=None, x=X0, y=None, gap=0.0, size=SMALL, **style):
        """A row of cells at y (the cursor unless told), named on the left by label: the x of each cell's middle."""
        h, y = h or w, self.y if y is None else y
        if label:
            self.label(x, y + h / 2, label, **style)
        for n, (fill, text) in enumerate(itertools.zip_longest(fills, texts)):
            self.cell(x + n * (w + gap), y, w, h, fill, text, size=size)
        return [x + n * (w + gap) + w / 2 for n in range(len(fills))]

    def numbers(self, label, count, w=1.0):
        """A row of column numbers 0 .. count - 1 above a grid at X0, named by label on the left."""
        self.label(X0, self.y, label, color=MUTED)
        for n in range(count):
            self.text(X0 + (n + 0.5) * w, self.y, str(n), size=SMALL, ha="center", color=MUTED)
        self.y += 0.6

    def grid(self, x, y, columns, rows, w=1.0, h=1.0):
        """An empty grid of columns x rows cells, ruled in one stroke (a small SVG, where cells would be many)."""
        self.cell(x, y, columns * w, rows * h, EMPTY)
        across = [[(x, y + r * h), (x + columns * w, y + r * h)] for r in range(1, rows)]
        down = [[(x + c * w, y), (x + c * w, y + rows * h)] for c in range(1, columns)]
        self.ax.add_collection(LineCollection(across + down, colors=GRID, linewidths=0.6))

    def box(self, x, y, w, h, name, detail, onward):
        """A hardware unit: a box, its name in bold and a few muted lines under it; an arrow on, labelled onward."""
        self.ax.add_patch(Rectangle((x, y), w, h, facecolor=UNIT_FILL, edgecolor=INK, linewidth=1))
        self.text(x + 0.5, y + 0.8, name, weight="bold")
        for n, string in enumerate(detail):
            self.text(x + 0.5, y + 1.8 + 0.8 * n, string, size=SMALL, color=MUTED)
        if onward is not None:
            self.arrow((x + 2, y + h), (x + 2, y + h + 1.6))
            self.text(x + 2.4, y + h + 0.8, onward, size=SMALL, color=MUTED)

    def arrow(self, start, end, color=INK, dashed=False, **style):
        """An arrow from start to end, dashed for the way around."""
        self.ax.add_patch(FancyArrowPatch(start, end, arrowstyle="-|>", mutation_scale=10, color=color,
                                          linewidth=1.2, linestyle="--" if dashed else "-", **style))

    def done(self, legend, columns=3):
        """The finished figure: the legend (fill, label) under the drawing, a unit kept square."""
        handles = [Patch(facecolor=fill, edgecolor=GRID, label=label) for fill, label in legend]
        self.ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(MARGIN, self.y),
                       bbox_transform=self.ax.transData, ncols=columns, frameon=False,
                       fontsize=SMALL, borderaxespad=0, handlelength=1.2, columnspacing=1.5)
        self.y += 1.1 * math.ceil(len(legend) / columns) + 0.4
        self.ax.set(xlim=(0, WIDTH), ylim=(self.y, 0))
        self.fig.set_size_inches(WIDTH * UNIT, self.y * UNIT)
        return self.fig


# ---------------------------------------------------------------- sectors: figures 01, 02, 05

WORD = 0.8                      # a 4-byte word in a sector box; 8 words and a gap fill 8 units


def sector_figure(title, lane_is, pairs, size, load, store):
    """Warp 0's load of in and store to out: lanes coloured by the sector each hits, then each sector's 8 words."""
    c = Canvas(f"{title} ({ROWS} x {COLS} floats)")
    for side, (matrix, heading, row_bytes) in enumerate((("in", load, COLS * FLOAT), ("out", store, ROWS * FLOAT))):
        indices = [pair[side] for pair in pairs]        # pairs: the (in, out) index of each lane
        accesses = [(lane, i * size, size) for lane, i in enumerate(indices)]
        if size == FLOAT:       # in[0], in[1], ..., in[31]: 1 element apart
            shown = ", ".join(f"{matrix}[{i:,}]" for i in indices[:2])
            detail = f"{shown}, ..., {matrix}[{indices[-1]:,}]: {plural(indices[1] - indices[0], 'element')} apart"
        else:                   # the rows a float4 access reads from or writes to
            rows = sorted({i * size // row_bytes for i in indices})
            detail = "16 bytes from each of rows " + ", ".join(map(str, rows))
        sectors = sectors_of(accesses)
        colour = {sector: PALETTE[n % len(PALETTE)] for n, sector in enumerate(sectors)}
        c.heading(heading, f"warp 0 of block (0, 0), lane = {lane_is}: {detail}")
        c.strip("lane", [colour[address // SECTOR] for _, address, _ in accesses], map(str, range(WARP)), color=MUTED)
        c.y += 1.6
        for n, (sector, hits) in enumerate(sectors.items()):
            x, y = X0 + n % 4 * 8, c.y + n // 4 * 2.1
            row, byte = divmod(sector * SECTOR, row_bytes)
            c.text(x, y + 0.3, f"{matrix} row {row}, bytes {byte}-{byte + SECTOR - 1}", size=SMALL, color=MUTED)
            c.grid(x, y + 0.7, SECTOR_FLOATS, 1, w=WORD)
            for lane, word, words in hits:
                c.cell(x + word * WORD, y + 0.7, words * WORD, 1, colour[sector], str(lane), edge=INK)
        c.y += 2.1 * math.ceil(len(sectors) / 4) + 0.3
        useful, moved = size * WARP, len(sectors) * SECTOR
        use = "every byte is used" if useful == moved else f"{useful // len(sectors)} of every {SECTOR} bytes are used"
        c.verdict(f"{plural(len(sectors), 'sector')} for {useful} useful bytes: {use}", useful == moved)
    return c.done([(PALETTE[0], "a word used by the lane written in it (one colour per sector)"),
                   (EMPTY, "a word no lane uses")], columns=2)


def fig_01_sectors():
    """Step 01: the naive kernel's warp loads 4 whole sectors but stores 4 bytes into each of 32."""
    return sector_figure("Step 01: the 32-byte sectors one warp touches", "threadIdx.x",
                         [naive(tx, ty) for tx, ty in lanes(0, 32)], FLOAT,
                         "load: in[row * cols + col]", "store: out[col * rows + row]")


def fig_02_sectors():
    """Step 02: reading in down a column instead makes the store whole and the load one sector per lane."""
    return sector_figure("Step 02: the 32-byte sectors one warp touches", "threadIdx.x",
                         [coalesced_write(tx, ty) for tx, ty in lanes(0, 32)], FLOAT,
                         "load: in[out_col * cols + out_row]", "store: out[out_row * rows + out_col]")


def fig_05_sectors():
    """Step 05: float4 loads and stores, i = 0 of 4, use every byte of the sectors they touch."""
    return sector_figure("Step 05: the sectors one warp's float4 access touches", "8 threadIdx.y + threadIdx.x",
                         [float4_quad(tx, ty, 0) for tx, ty in lanes(0, 8)], FLOAT4,
                         "load i = 0 of 4: in4[(r0 + i) * (cols / 4) + qc]",
                         "store j = 0 of 4: out4[(c0 + j) * (rows / 4) + qr]")


# ---------------------------------------------------------------- banks: figures 06 to 09

BANK_LEGEND = [(lane_colour(0), "lane 0"), (lane_colour(16), "lane 16"),
               (lane_colour(31), "lane 31, each drawn in the bank it hits"), (EMPTY, "idle bank")]


def bank_panel(c, heading, detail, served, width=1, verdict=None):
    """One shared access of one warp: a grid row per wavefront, each lane in the bank (or 4-bank group) it hits."""
    groups = [group for group, _ in served]
    ways = max(groups.count(g) for g in set(groups))    # the wavefronts of the busiest lane group: n-way conflict
    c.heading(heading, detail)
    c.numbers("bank group" if width > 1 else "bank", BANKS // width, width)
    c.grid(X0, c.y, BANKS, len(served), h=ROW_H)
    for n, (group, row) in enumerate(served):
        y = c.y + n * ROW_H
        quarter = f"lanes {8 * group}-{8 * group + 7}, wf {n - groups.index(group) + 1}"
        c.label(X0, y + ROW_H / 2, quarter if width > 1 else f"wavefront {n + 1}")
        for first, hit_by in row.items():
            label = ("lane " if width > 1 else "") + ",".join(map(str, hit_by))
            c.cell(X0 + first, y, width, ROW_H, lane_colour(hit_by[0]), label, edge=INK)
    c.y += len(served) * ROW_H + 0.7
    if verdict is None and width == 1:
        verdict = "conflict-free: 1 wavefront" if ways == 1 else f"{ways}-way conflict: {ways} wavefronts"
    elif verdict is None and ways == 1:
        verdict = f"no conflict: {len(served)} wavefronts, one per quarter-warp (the least for 512 bytes)"
    elif verdict is None:
        verdict = f"{ways}-way conflict: {len(served)} wavefronts for the warp, {ways} per quarter-warp"
    c.verdict(verdict, ways == 1)


def tile_wavefronts(step, tile, block_rows, warp=0):
    """The wavefronts of a warp's shared store and of its shared load in the step 06-08 kernel."""
    elements = [tile_elements(tx, ty, block_rows) for tx, ty in lanes(warp, tile)]
    return [wavefronts([WORD_OF[step](*pair[n], tile) for pair in elements]) for n in (0, 1)]


def tile_panels(c, step, name, tile, block_rows, warp, store, load):
    """The shared store and the shared load of one variant of the step 06-08 kernel."""
    rows_of_warp = " and ".join(map(str, sorted({ty for _, ty in lanes(warp, tile)})))
    lane = "threadIdx.x" if tile == WARP else f"{tile} threadIdx.y + threadIdx.x - {warp * WARP}".removesuffix(" - 0")
    who = f"{name} (block {tile} x {block_rows}): warp {warp} = threadIdx.y {rows_of_warp}, lane = {lane}"
    headings = (f"shared store (writing the tile): {store}", f"shared load (reading it transposed): {load}")
    for heading, served in zip(headings, tile_wavefronts(step, tile, block_rows, warp), strict=True):
        bank_panel(c, heading, who + "; iteration i = 0", served)


def fig_06_banks():
    """Step 06: a warp writes a row of the tile in one wavefront but reads a column of it in 32."""
    c = Canvas("Step 06: shared-memory banks of one warp, float tile[32][32]")
    tile_panels(c, "06", "shared_32x8", 32, 8, 5,
                "tile[r][threadIdx.x], word 32 r + threadIdx.x", "tile[threadIdx.x][r], word 32 threadIdx.x + r")
    counts = []
    for side in (32, 16, 8):
        store, load = tile_wavefronts("06", side, side)
        counts.append(f"shared_{side}x{side}: store {len(store)}, load {len(load)}")
    c.line("The other block shapes, counted the same way (wavefronts of warp 0): " + "; ".join(counts), color=MUTED)
    return c.done(BANK_LEGEND, columns=4)


def fig_07_banks():
    """Step 07: a word of padding per row: conflict-free for the 32 x 8 block, still 2-way for 16 x 16."""
    c = Canvas("Step 07: shared-memory banks of one warp, padded tile[T][T + 1]")
    tile_panels(c, "07", "shared_padded", 32, 8, 5,
                "tile[r][threadIdx.x], word 33 r + threadIdx.x", "tile[threadIdx.x][r], word 33 threadIdx.x + r")
    tile_panels(c, "07", "shared_padded_16x16", 16, 16, 0, "tile[y][x], word 17 y + x", "tile[x][y], word 17 x + y")
    return c.done(BANK_LEGEND, columns=4)


def fig_08_banks():
    """Step 08: the XOR swizzle makes both accesses conflict-free for both block shapes, without padding."""
    c = Canvas("Step 08: shared-memory banks of one warp, swizzled tile[r][c ^ r]")
    tile_panels(c, "08", "shared_swizzle", 32, 8, 5, "tile[r][threadIdx.x ^ r]", "tile[threadIdx.x][r ^ threadIdx.x]")
    tile_panels(c, "08", "shared_swizzle_16x16", 16, 16, 0,
                "tile[y][x ^ y], word 16 y + (x ^ y)", "tile[x][y ^ x], word 16 x + (y ^ x)")
    return c.done(BANK_LEGEND, columns=4)


def fig_09_banks():
    """Step 09: 16-byte accesses through the chunk swizzle, and the same LDS.128 without it."""
    c = Canvas("Step 09: 16-byte shared accesses, chunk c of row r at c ^ ((r / 4) % 8)")
    detail = "vec4 (block 32 x 8): warp 0, lane = tid; a float4 fills 4 banks; one quarter-warp is served at a time"
    bank_panel(c, "shared store: tile[chunk_slot(load_row, load_chunk)]", detail + " (pass p = 0)",
               wavefronts(per_lane("vec4_store"), 4), 4)
    bank_panel(c, "shared load: tile[chunk_slot(group * 4 + k, block_col)]", detail + " (k = 0)",
               wavefronts(per_lane("vec4_load"), 4), 4)
    plain = wavefronts(per_lane("vec4_load_plain"), 4)
    first = [(group, row) for group, row in plain if group == 0]
    bank_panel(c, "the same load without the swizzle: chunk c of a 16-chunk row at c",
               "lanes 0-7 only: chunk 0 of tile rows 0, 4, ..., 28, which all start in bank group 0", first, 4,
               f"{len(first)}-way conflict: {len(first)} wavefronts here, {len(plain)} for the warp")
    scalar = [len(wavefronts(per_lane(kind))) for kind in ("word_store", "word_load")]
    c.line(f"The 4-byte kernel (steps/09_shared64/tile64.cuh, word_slot(): c ^ (r % 32)): store {scalar[0]}, "
           f"load {scalar[1]} wavefront per warp access.", color=MUTED, step=1.3)
    return c.done([(lane_colour(0), "lane 0"), (lane_colour(31), "lane 31, in the 4-bank group it hits"),
                   (EMPTY, "idle bank")])


# ---------------------------------------------------------------- tiles: figure 10

FIRST_WAVE, TILE_CELL = 16, 1.5   # a toy GPU that holds 16 blocks at once


def tile_order_panel(c, kernel, name, walk):
    """Block t's tile of in (raster_tile() in the kernel's order) and of out, and what the first wave touches."""
    in_numbers = list(table(kernel).values())       # the block at each tile (tile_y, tile_x)
    tiles = len(in_numbers)
    out_numbers = [list(column) for column in zip(*in_numbers, strict=True)]   # tile (y, x) of in is (x, y) of out
    c.heading(name, walk)
    top, span = c.y + 0.8, tiles * TILE_CELL
    out_x = X0 + span + 5
    for x, numbers, caption in ((X0, in_numbers, "in: block t takes tile (tile_y, tile_x)"),
                                (out_x, out_numbers, "out: where that block writes")):
        c.text(x, top - 0.6, caption, size=SMALL, weight="bold")
        for row, blocks in enumerate(numbers):      # each tile labelled with its block, the first wave lit
            c.strip(None, [HIGHLIGHT if t < FIRST_WAVE else FADED for t in blocks], map(str, blocks), TILE_CELL,
                    x=x, y=top + row * TILE_CELL)
    c.arrow((X0 + span + 0.5, top + span / 2), (out_x - 0.5, top + span / 2))
    written, read = ([[t < FIRST_WAVE for t in row] for row in grid] for grid in (out_numbers, in_numbers))
    for row in range(tiles):
        if any(written[row]):
            c.cell(out_x + span + 0.3, top + row * TILE_CELL + 0.15, 0.3, TILE_CELL - 0.3, HIGHLIGHT_TEXT,
                   edge=HIGHLIGHT_TEXT)
    c.y = top + span + 0.8
    run = 64 * FLOAT    # bytes in a row of one 64 x 64 tile
    out_run, in_run = (max(len(list(tiles)) for row in grid for lit, tiles in itertools.groupby(row) if lit)
                       for grid in (written, read))   # the longest runs of lit tiles along a row
    c.line(f"The first wave (blocks 0-{FIRST_WAVE - 1}) writes into {64 * sum(map(any, written))} of the "
           f"{64 * tiles} rows of out, in runs of {out_run * run} bytes ({plural(out_run, 'tile')});",
           size=SMALL + 1, color=HIGHLIGHT_TEXT)
    c.line(f"it reads {64 * sum(map(any, read))} rows of in, in runs of {in_run * run} bytes "
           f"({plural(in_run, 'tile')}).", size=SMALL + 1, color=HIGHLIGHT_TEXT, step=1.6)


def fig_10_tile_order():
    """Step 10: blocks that walk down a column of tiles of in write along rows of out, in long runs."""
    c = Canvas("Step 10: the order in which blocks take tiles, and what the first wave writes")
    blocks_per_sm, tiles = THREADS_PER_SM // 256, len(table("row_async"))
    c.line(f"{tiles} x {tiles} tiles of 64 x 64 floats; a toy GPU that holds {FIRST_WAVE} blocks at once "
           f"(an H200 holds {blocks_per_sm} x {H200_SMS} = {blocks_per_sm * H200_SMS:,})", color=MUTED, step=1.4)
    tile_order_panel(c, "row_async", "row_async: row-major tile order (GROUP = 1)",
                     f"raster_tile(t, {tiles}, {tiles}, 1): consecutive blocks walk along a row of tiles of in")
    tile_order_panel(c, "col_async", "col_async (the default): column-major tile order (COLUMN_MAJOR)",
                     f"raster_tile(t, {tiles}, {tiles}, COLUMN_MAJOR): consecutive blocks walk down a column of "
                     "tiles of in = along a row of out")
    return c.done([(HIGHLIGHT, "a tile of the first wave of blocks"), (FADED, "a tile of later blocks"),
                   (HIGHLIGHT_TEXT, "a tile row of out the first wave writes into")])


# ---------------------------------------------------------------- runs and sectors: figures 11, 12


def float_strip(c, cell, fills, label, boundaries=None, note=None, step=0.0, texts=()):
    """Floats at the cursor, a cell each, thick lines at the boundaries (16-byte chunks unless told); its left edge."""
    x = 5.5
    boundaries = range(0, len(fills) + 1, CHUNK) if boundaries is None else boundaries
    c.strip(label, fills, texts, cell, x=x, family="monospace")
    c.ax.vlines([x + b * cell for b in boundaries], c.y - 0.15, c.y + cell + 0.15, colors=INK, linewidth=1.2)
    if note:
        c.text(x + len(fills) * cell + cell, c.y + cell / 2, note, size=SMALL, color=MUTED)
    c.y += step
    return x


def fig_11_runs():
    """Step 11: a misaligned row loaded as aligned chunks; a run of out stored as whole chunks and single floats."""
    c = Canvas("Step 11: aligned 16-byte chunks on a misaligned shape")
    (rows, cols), = played("misaligned_shape")
    c.line(f"{rows} x {cols}, aligned pointers; the tile at rows 0-63, columns 64-127. One cell: one float; "
           "thick lines: 16-byte chunk boundaries.", color=MUTED, step=1.4)
    c.heading("load: tile rows 0-3 of in, each read as the aligned chunks that cover it")
    for r, columns in table("load_row_chunk").items():     # the tile column of each chunk's first float
        fills = [GOOD if 0 <= col + e < TILE64 else FADED for col in columns for e in range(CHUNK)]
        float_strip(c, 0.4, fills, f"row {r}: shift {-columns[0]}", note=f"{len(columns)} chunks", step=1.1)
    c.y += 0.5
    c.heading("store: rows 64-67 of out, the run of 64 floats this tile writes in each")
    for j, widths in table("store_run").items():           # the bytes of the store that wrote each float
        head, whole = widths.index(FLOAT4), widths.count(FLOAT4) // CHUNK
        fills = [EMPTY] * (j * rows % CHUNK) + [GOOD if width == FLOAT4 else BAD for width in widths]
        fills += [EMPTY] * (-len(fills) % CHUNK)
        note = f"{head} + {whole} chunks + {len(widths) - head - whole * CHUNK}"
        float_strip(c, 0.4, fills, f"out row {j}", note=note, step=1.1)
    c.y += 0.3
    return c.done([(GOOD, "moved by a 16-byte access"), (BAD, "a single 4-byte store"),
                   (FADED, "loaded, a neighbour's: dropped"), (EMPTY, "another tile's")], columns=4)


def owner(j, i, sector_runs):
    """The row of tiles k that writes float i of out row j: runs of 64 from 64 k, or the sector runs sr_run() gives."""
    if not sector_runs:
        return i // TILE64
    runs = zip(table("sr_run_first")[j], table("sr_run_last")[j], strict=True)
    return next(k for k, (first, last) in enumerate(runs) if first <= i < last)


def fig_11_sectors():
    """Step 11: which tile writes each float of a few rows of out, with and without sector runs."""
    c = Canvas("Step 11: runs of out that start on sector boundaries")
    cell, first, count = 0.36, 32, 88
    (rows, cols), = played("misaligned_shape")
    c.line(f"{rows} x {cols}: floats {first}-{first + count - 1} of out rows 64-67, coloured by the row of "
           "tiles that writes them; thick lines: 32-byte sectors.", color=MUTED, step=1.4)
    for title, sector_runs in (("runs of 64 floats from column 64 k (step 11's word and chunk kernels)", False),
                               ("sector runs: each run starts on a sector boundary (step 11 on odd rows)", True)):
        c.heading(title)
        split = 0
        for j in table("sr_run_first"):
            owners = [owner(j, i, sector_runs) for i in range(first, first + count)]
            starts = range(-(j * rows + first) % SECTOR_FLOATS, count, SECTOR_FLOATS)
            x = float_strip(c, cell, [PALETTE[k % len(PALETTE)] for k in owners], f"out row {j}", starts)
            for s in starts:
                if s + SECTOR_FLOATS <= count and len(set(owners[s:s + SECTOR_FLOATS])) > 1:
                    split += 1
                    c.cell(x + s * cell, c.y + cell + 0.2, SECTOR_FLOATS * cell, 0.2, BAD, edge=BAD)
            c.y += 1.0
        c.line(f"{plural(split, 'sector')} with two writers in these rows", color=MUTED, step=1.4)
    return c.done([(PALETTE[0], "written by tile row k = 0"), (PALETTE[1], "by tile row k = 1"),
                   (BAD, "a sector two tiles write")])


def fig_12_swizzle():
    """Step 12: the TMA unit's 128-byte swizzle, and the bank groups one quarter-warp's reads hit."""
    c = Canvas("Step 12: the 128-byte swizzle of a TMA box, and one quarter-warp's reads")
    cell = 1.4
    c.line("One box row = 128 bytes = 8 chunks = the 32 banks once. In a cell: the chunk of in stored there "
           "(CU_TENSOR_MAP_SWIZZLE_128B).", color=MUTED, step=1.4)
    c.numbers("bank group", 8, cell)
    quarter, place = played("tma_read"), played("tma_place")   # {(box row, chunk): the lane of 0-7 that reads it}
    for row, places in table("tma_place").items():
        chunks = sorted(range(len(places)), key=places.__getitem__)     # the chunk stored at each place
        fills = [PALETTE[quarter[(row, chunk)]] if (row, chunk) in quarter else EMPTY for chunk in chunks]
        c.strip(f"row {row}", fills, map(str, chunks), cell, family="monospace")
        c.y += cell
    groups = sorted(place[row_chunk] for row_chunk in quarter)
    c.y += 0.7
    c.verdict(f"Lanes 0-7 read rows 0 and 4, chunks 0-3 (k = 0): bank groups {', '.join(map(str, groups))}, "
              f"{'all different: one wavefront' if len(set(groups)) == 8 else 'a conflict'}.", len(set(groups)) == 8)
    return c.done([(PALETTE[0], "a chunk that lanes 0-7 read (one colour per lane)"), (EMPTY, "the other chunks")],
                  columns=2)


# ---------------------------------------------------------------- half-words: figure 13


def fig_13_half_words():
    """Step 13: two bf16 elements to a bank word; the port reads halves, the PRMT store reads whole words."""
    c = Canvas("Step 13: two bf16 elements to a bank word (tile16<64, 128>)")
    port = per_lane("port_element")
    words = sorted({e // 2 for e in port})
    bank_panel(c, "port: warp 0's first shared load, one 2-byte element per lane (LDS.U16)",
               f"tile element t16_slot(8 g, c / 8) * 8 + c % 8, g = lane % 8, c = lane / 8: {len(words)} words, "
               f"{WARP * 2} bytes", wavefronts([e // 2 for e in port]))
    pairs = per_lane("prmt_word")
    bank_panel(c, "prmt: warp 0's first shared load, one 4-byte word per lane (LDS)",
               f"word t16_slot(8 g, h / 4) * 4 + h % 4, (g, h) = t16_pair_job(lane): {len(set(pairs))} words, "
               f"{WARP * 4} bytes", wavefronts(pairs))
    c.heading("PRMT: lane 0 pairs the halves of rows 0 and 1 into column 0's word and column 1's word",
              "low half = the even column, high half = the odd one; __byte_perm(w0, w1, 0x5410) and (w0, w1, 0x7632)")
    element = {0x0100: "r0 c0", 0x0302: "r0 c1", 0x0504: "r1 c0", 0x0706: "r1 c1"}   # byte pairs of w1:w0
    perm = dict(zip(table("byte_perm"), per_lane("byte_perm"), strict=True))   # {selector: byte_perm(w0, w1, it)}
    for label, selectors, fills in (("w0, w1 (rows 0, 1)", (0x3210, 0x7654), PALETTE[:2] * 2),
                                    ("column 0, column 1", (0x5410, 0x7632), [PALETTE[0]] * 2 + [PALETTE[1]] * 2)):
        halves = [element[perm[s] >> shift & 0xFFFF] for s in selectors for shift in (0, 16)]   # low half first
        float_strip(c, 1.6, fills, label, range(0, 5, 2), texts=halves, step=2.1)   # thick lines: words
    return c.done([(lane_colour(0), "lane 0"), (lane_colour(31), "lane 31, in the bank it reads"),
                   (PALETTE[0], "an even tile column"), (PALETTE[1], "an odd tile column")], columns=4)


# ---------------------------------------------------------------- the memory system: figures 01, 03

MEMORY_SYSTEM = [
    # (unit, what it is, [(what Nsight Compute counts there, [its metrics])], the way on to the next unit)
    ("SM: warps of 32 lanes", ["one instruction of a warp", "= one request"],
     [("achieved occupancy: resident warps / 64 per SM", ["sm__warps_active.avg.pct_of_peak_sustained_active"])],
     "global and shared ld / st"),
    ("L1TEX: one per SM", ["global path: tags in 32-byte", "sectors; L1 = texture cache", "",
                           "shared memory: 32 banks x 4", "bytes = 128 bytes per wavefront"],
     [("requests: warp instructions to global memory",
       ["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"]),
      ("32-byte sectors they touch (/ requests = sectors per request)",
       ["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"]),
      ("share of sectors found in L1 (loads and stores mixed)", ["l1tex__t_sector_hit_rate.pct"]),
      ("shared wavefronts: passes through the 32 banks",
       ["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"]),
      ("bank conflicts: extra wavefronts (and other waits)",
       ["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"])],
     "global load misses and every global store, in sectors"),
    ("L2: shared by all SMs", ["merges partial-sector writes", "before they go to DRAM"],
     [("sectors read from and written to L2", ["lts__t_sectors_op_read.sum", "lts__t_sectors_op_write.sum"]),
      ("sectors found in L2", ["lts__t_sector_hit_rate.pct"])],
     "L2 misses and write-backs"),
    ("DRAM (HBM)", ["a transpose reads and writes", "every byte once, at best"],
     [("bytes moved by the memory itself", ["dram__bytes_read.sum", "dram__bytes_write.sum"]),
      ("how busy DRAM was", ["dram__throughput.avg.pct_of_peak_sustained_elapsed"])],
     None),
]


def fig_01_memory_system():
    """A warp's request through L1TEX, L2 and DRAM, with the metrics the write-ups quote where each is counted."""
    c = Canvas("Where Nsight Compute counts a warp's memory traffic")
    for unit, detail, counted, onward in MEMORY_SYSTEM:
        top = c.y
        c.y += 0.6
        for meaning, metrics in counted:
            c.line(meaning, size=SMALL + 1, x=15, step=0.85)
            for metric in metrics:
                c.line(metric, x=15.6, step=0.8, family="monospace")
            c.y += 0.3
        height = max(c.y - top, 1.8 + 0.8 * len(detail))
        c.box(MARGIN, top, 12, height, unit, detail, onward)
        c.ax.vlines(14.2, top + 0.3, top + height - 0.3, colors=GRID, linewidth=3)
        c.y = top + height + (1.6 if onward else 0)
    c.y += 0.5
    return c.done([(UNIT_FILL, "a hardware unit; beside it, in monospace, the Nsight Compute metrics counted there; "
                               "arrows: the way of a load (stores too)")], columns=1)


S03_LOADS = [
    # What nvcc 13 emits for sm_90 for each kernel's strided read (cuobjdump --dump-sass build/step03).
    ("kernel", "the read", "PTX", "SASS", "cached in"),
    ("02 coalesced_write", "in[i]", "ld.global.f32", "LDG.E", "L1 and L2"),
    ("03 ldg (default)", "__ldg(&in[i])", "ld.global.nc.f32", "LDG.E.CONSTANT", "L1 and L2"),
    ("03 restrict", "in[i], const __restrict__", "ld.global.nc.f32", "LDG.E.CONSTANT", "L1 and L2"),
    ("03 l2_only", "__ldcg(&in[i])", "ld.global.cg.f32", "LDG.E.STRONG.GPU", "L2 only"),
]
S03_COLUMNS = (0, 8, 19, 27, 35)     # where each column of the table starts


def read_paths(c, top):
    """The ways a load takes: through L1TEX to L2, or (.cg) around L1, dashed."""
    units = (("SM: the warp's LDG", "32 lanes, 32 sectors", "LDG.E, LDG.E.CONSTANT"),
             ("L1TEX (one per SM)", "L1 = texture cache", "misses"), ("L2 (all SMs)", "sees what L1 misses", ""),
             ("DRAM", "", None))
    for n, (name, detail, onward) in enumerate(units):
        c.box(MARGIN, top + 4 * n, 9, 2.4, name, [detail], onward)
    c.arrow((MARGIN + 9, top + 1.2), (MARGIN + 9, top + 9.2), BAD, True, connectionstyle="bar,fraction=-0.15")
    c.text(MARGIN + 10.5, top + 5, "LDG.E.STRONG.GPU", size=SMALL, family="monospace", color=BAD)
    c.text(MARGIN + 10.5, top + 5.8, "(.cg: skips L1)", size=SMALL, color=BAD)


def l1_reuse(c, top):
    """How much L1 reuse one step 02 block's strided read allows: the sectors each warp asks for."""
    asked_by, requests = {}, 8 * WARP
    for warp in range(8):
        for tx, ty in lanes(warp, 32):
            i, _ = coalesced_write(tx, ty, rows=4096, cols=4096)
            asked_by.setdefault(i * FLOAT // SECTOR, set()).add(warp)
    warp0 = [coalesced_write(tx, ty, rows=4096, cols=4096) for tx, ty in lanes(0, 32)]
    load, store = (len(sectors_of([(0, pair[n] * FLOAT, FLOAT) for pair in warp0])) for n in (0, 1))
    sharing = len(next(iter(asked_by.values())))
    hits = requests - len(asked_by)
    x, cell = 19, 0.6
    c.text(x - 3, top + 0.4, "one step 02 block (32 x 8 threads) reads 32 rows x 8 columns of in", weight="bold")
    for warp in range(8):
        c.label(x, top + 1.6 + (warp + 0.5) * cell, f"warp {warp}", color=MUTED)
    for column, sector in enumerate(sorted(asked_by)):
        for warp in asked_by[sector]:
            c.cell(x + column * cell, top + 1.6 + warp * cell, cell, cell, lane_colour(4 * warp))
    rate = 100 * hits / requests * load / (load + store)
    notes = [f"a column: a 32-byte sector of in; a row: a warp (threadIdx.y). {requests} requests,",
             f"{len(asked_by)} distinct sectors, each asked for by {sharing} warps: at most {hits} of {requests}",
             f"hit in L1 ({sharing - 1}/{sharing}). A warp also stores {store} sectors; if L1 counts them",
             f"all as misses, at most {sharing - 1}/{sharing} x {load} / ({load} + {store}) = {rate:.1f} % hit in L1."]
    for n, note in enumerate(notes):
        c.text(x - 3, top + 2.4 + 8 * cell + 0.8 * n, note, size=SMALL, weight="bold" if n == 3 else "normal")


def fig_03_readonly():
    """Step 03: what each load compiles to, which way it goes, and the L1 reuse the block allows."""
    c = Canvas("Step 03: the strided read through L1 or around it")
    for r, row in enumerate(S03_LOADS):     # the headings in bold, then the code in monospace
        c.ax.hlines(c.y + 0.45, MARGIN, WIDTH - MARGIN, colors=GRID, linewidth=0.6)
        for n, (x, cell) in enumerate(zip(S03_COLUMNS, row, strict=True)):
            style = {"family": "monospace"} if r and n in (1, 2, 3) else {"weight": "normal" if r else "bold"}
            c.text(MARGIN + x, c.y, cell, size=SMALL + 1, color=BAD if cell == "L2 only" else INK, **style)
        c.y += 0.9
    c.line("const __restrict__ alone already gives the non-coherent load (.nc): __ldg only forces it.",
           color=MUTED, step=1.6)
    read_paths(c, c.y)
    l1_reuse(c, c.y)
    c.y += 14.8
    return c.done([(UNIT_FILL, "a hardware unit")])


# ---------------------------------------------------------------- bytes in flight: figure 04, the ladder

OCCUPANCY = "sm__warps_active.avg.pct_of_peak_sustained_active"
DRAM_BUSY = "dram__throughput.avg.pct_of_peak_sustained_elapsed"


def profile_at_4096(metric):
    """{(step, kernel): value} of one metric at 4096 x 4096 in the committed H200 profile."""
    frame = results.load(results.path("h200", "profile"), "profile")
    at = frame[(frame.metric == metric) & (frame.rows == 4096) & (frame.cols == 4096) & (frame.offset == 0)]
    return {(row.step, row.kernel): row.value for row in at.itertuples()}


SHARED_LOADS = 32 * 32 // 256        # steps 06-08: a 32 x 32 tile loaded by 256 threads
VEC4_LOADS = 64 * 64 // 256 // 4     # steps 09-10: a 64 x 64 tile of float4s loaded by 256 threads
IN_FLIGHT = {   # (step, kernel) in the profile: (loads a thread issues before its first store, bytes each)
    # steps/04_unroll/unroll.cu: transpose_unrolled<UNROLL> loads its UNROLL elements, then stores them
    ("02", "coalesced_write"): (1, FLOAT),
    ("03", "ldg"): (1, FLOAT),
    ("04", "unroll4"): (4, FLOAT),
    ("04", "unroll8"): (8, FLOAT),
    ("05", "float4"): (QUAD, FLOAT4),
    ("06", "shared_32x8"): (SHARED_LOADS, FLOAT),
    ("07", "shared_padded"): (SHARED_LOADS, FLOAT),
    ("08", "shared_swizzle"): (SHARED_LOADS, FLOAT),
    ("09", "vec4"): (VEC4_LOADS, FLOAT4),
    ("10", "col_async"): (VEC4_LOADS, FLOAT4),
}
S04_KERNELS = [("03", "ldg"), ("04", "unroll4"), ("04", "unroll8"), ("05", "float4")]   # the kernels of figure 04


def thread_timeline(ax, labels):
    """What one thread of each kernel issues: all its loads, one wait for DRAM, then its stores."""
    for n, (label, key) in enumerate(zip(labels, S04_KERNELS, strict=True)):
        loads, size = IN_FLIGHT[key]
        box, suffix = (1.0, "") if size == FLOAT else (2.2, ".128")
        slots = [i * (box + 0.15) for i in range(loads + 1)]    # where each instruction starts, and the end
        ax.text(-0.4, n, label, ha="right", va="center")
        for kind, fill, start in (("LD", PALETTE[0], 0), ("ST", PALETTE[1], slots[-1] + 4)):
            drawn = ax.barh(n, box, 0.7, [start + x for x in slots[:-1]], color=fill, edgecolor=INK, linewidth=0.6)
            ax.bar_label(drawn, [kind + suffix] * loads, label_type="center", fontsize=SMALL)
        ax.annotate("", (slots[-1] + 3.6, n), (slots[-1] + 0.2, n), arrowprops={"arrowstyle": "-|>", "color": MUTED,
                                                                            "linestyle": "--"})
        in_flight = f"{loads} x {size} B = {loads * size} B in flight"
        ax.text(2 * slots[-1] + 4.3, n, in_flight, va="center", color=MUTED, fontsize=SMALL)
    ax.set(xlim=(-8, 30), ylim=(len(S04_KERNELS) - 0.5, -0.6))
    ax.set_axis_off()
    ax.set_title("what one thread issues: all its loads, one wait for DRAM (dashed), then its stores", loc="left")


def bars(ax, labels, values, fill, notes=None, **style):
    """Horizontal bars outlined in ink, with a note beside each where given."""
    drawn = ax.barh(labels, values, color=fill, edgecolor=INK, linewidth=0.6, **style)
    if notes:
        ax.bar_label(drawn, labels=notes, padding=3, fontsize=SMALL)


def fig_04_unroll():
    """Step 04: loads per thread before the first store, and the bytes in flight per thread and per SM."""
    occupancy = profile_at_4096(OCCUPANCY)
    fig = Figure(figsize=(8.8, 5.6), layout="constrained")
    fig.suptitle("Step 04: several elements per thread, more bytes in flight", weight="bold", fontsize=TITLE)
    timeline, per_sm = fig.subplots(2, 1, height_ratios=(1.2, 1))
    labels = [f"{step} {kernel}" for step, kernel in S04_KERNELS[:-1]] + ["05 float4 (next step)"]
    thread_timeline(timeline, labels)
    full = [THREADS_PER_SM * loads * size / 1024 for loads, size in map(IN_FLIGHT.get, S04_KERNELS)]
    measured = [occupancy.get(key, math.nan) for key in S04_KERNELS]
    achieved = [f * m / 100 for f, m in zip(full, measured, strict=True)]
    notes = [f"{a:.0f} of {f:.0f} KiB ({m:.0f} % occupancy)" for a, f, m in zip(achieved, full, measured, strict=True)]
    bars(per_sm, labels, full, FADED, notes, label=f"at full occupancy ({THREADS_PER_SM} threads per SM)")
    bars(per_sm, labels, achieved, PALETTE[0], label="at the achieved occupancy")
    per_sm.set_xlabel("KiB in flight per SM (achieved occupancy: docs/results/h200-profile.csv, 4096 x 4096)")
    per_sm.legend(loc="upper right", fontsize=SMALL)
    per_sm.invert_yaxis()
    per_sm.set_xlim(0, max(full) * 1.5)
    return fig


def fig_ladder_in_flight():
    """Steps 02-10: KiB in flight per SM (loads before the first wait x resident threads) beside DRAM throughput."""
    occupancy, dram = profile_at_4096(OCCUPANCY), profile_at_4096(DRAM_BUSY)
    kept = [(key, loads, size) for key, (loads, size) in IN_FLIGHT.items()
            if key != ("04", "unroll8") and key in occupancy and key in dram]
    labels = [f"{step} {kernel}" for (step, kernel), _, _ in kept]
    kib = [THREADS_PER_SM * occupancy[key] / 100 * loads * size / 1024 for key, loads, size in kept]
    fig = Figure(figsize=(8.8, 4.4), layout="constrained")
    fig.suptitle("Steps 02-10: bytes in flight per SM, and the DRAM throughput they reach",
                 weight="bold", fontsize=TITLE)
    left, right = fig.subplots(1, 2, sharey=True, width_ratios=(1.3, 1))
    bars(left, labels, kib, PALETTE[0], [f"{v:.0f} ({loads} x {size} B, {occupancy[key]:.0f} % occ.)"
                                         for v, (key, loads, size) in zip(kib, kept, strict=True)])
    left.set(xlim=(0, max(kib) * 1.8), xlabel="KiB in flight per SM (H200)")
    left.invert_yaxis()
    bars(right, labels, [dram[key] for key, _, _ in kept], PALETTE[2], [f"{dram[key]:.0f}" for key, _, _ in kept])
    right.set(xlim=(0, 100), xlabel="DRAM throughput, % of peak")
    fig.supxlabel("KiB in flight = 2048 threads x achieved occupancy x loads x bytes a thread issues before its first "
                  "wait; both at 4096 x 4096, docs/results/h200-profile.csv", fontsize=SMALL, color=MUTED)
    return fig


# ---------------------------------------------------------------- the plots of measured results

RUN = ["step", "rows", "cols", "offset"]     # one run of a step program: a step at a shape
SHAPE = ["rows", "cols", "offset"]
LADDER_SHAPES = ((8192, 8192), (32768, 32768))
GBPS = "GB/s (read + written, 1e9 B/s)"
STEP_COLOURS = ["#1f77b4", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22",
                "#000000", "#6b6ecf", "#393b79", "#e7969c"]     # none green or red: those are the baselines
MARKERS = "so^vDph*"


def measured(frame):
    """Each run's default kernel (its first kernel row) with a GB/s, and {shape: GB/s} of the copy bound and cuBLAS."""
    first = frame[frame.role == "kernel"].drop_duplicates(RUN)
    copies = frame[(frame.role == "copy") & frame.median_ms.notna()].sort_values("median_ms", kind="stable")
    library = frame[frame.role == "library"]    # every run times its own: its fastest copy, its library row
    copy, cublas = (rows.drop_duplicates(RUN).groupby(SHAPE).gbps.median() for rows in (copies, library))
    return first[first.gbps.notna()], copy, cublas      # the baselines: the median over the runs at a shape


def plot_ladder(name, frame):
    """GB/s of each step's default kernel at the ladder shapes measured, with copy and cuBLAS."""
    kernels, copy, cublas = measured(frame)
    panels = [((rows, cols), bars.sort_values("step", kind="stable")) for rows, cols in LADDER_SHAPES
              if len(bars := kernels[(kernels.rows == rows) & (kernels.cols == cols) & (kernels.offset == 0)])]
    if not panels:
        return None
    fig = Figure(figsize=(12, 0.6 + 4.2 * len(panels)), layout="constrained")
    fig.suptitle(f"Transpose bandwidth on {name}: the default kernel of each step", weight="bold", fontsize=TITLE)
    for ax, ((rows, cols), bars) in zip(fig.subplots(len(panels), 1, squeeze=False)[:, 0], panels, strict=True):
        bound, library = copy.get((rows, cols, 0), math.nan), cublas.get((rows, cols, 0), math.nan)
        x = list(range(len(bars)))
        drawn = ax.bar(x, bars.gbps, width=0.6, color="#4c72b0", edgecolor=INK, linewidth=0.5)
        ax.bar_label(drawn, labels=[f"{g:.0f}\n{p:.0f} %" for g, p in zip(bars.gbps, bars.pct_of_copy, strict=True)],
                     padding=2, fontsize=SMALL + 1, bbox={"facecolor": "white", "edgecolor": "none", "pad": 0.5})
        ax.axhline(bound, linestyle="--", linewidth=1.8, color=GOOD,
                   label=f"copy bound (best of memcpy, copy kernel): {bound:.0f} GB/s")
        if not math.isnan(library):
            ax.axhline(library, linewidth=1.8, color=BAD, label=f"cuBLAS cublasSgeam: {library:.0f} GB/s")
        ax.set_xticks(x, [f"{step}\n{kernel}" for step, kernel in zip(bars.step, bars.kernel, strict=True)],
                      fontsize=SMALL)
        ax.set(ylim=(0, 1.35 * max(bars.gbps.max(), bound)), ylabel=GBPS)
        ax.grid(axis="y")
        ax.legend(loc="upper left", fontsize=SMALL + 1)
        ax.set_title(f"{rows} x {cols} float32; above each bar: GB/s and % of the copy bound", fontsize=TEXT)
    return fig


def plot_sizes(name, frame):
    """GB/s of each step's default kernel against the side of a square matrix, with copy and cuBLAS."""
    kernels, copy, cublas = measured(frame)
    side = kernels.rows
    square = kernels[(side == kernels.cols) & (kernels.offset == 0) & (side >= 1024) & (side & (side - 1) == 0)]
    if not len(square):
        return None
    sides = sorted(square.rows.unique())
    fig = Figure(figsize=(10, 5.6), layout="constrained")
    ax = fig.subplots()
    ax.plot(sides, [copy.get((s, s, 0), math.nan) for s in sides], "--", color=GOOD, linewidth=2.5, label="copy bound")
    ax.plot(sides, [cublas.get((s, s, 0), math.nan) for s in sides], color=BAD, linewidth=2.5,
            label="cuBLAS cublasSgeam")
    for n, (step, points) in enumerate(square.sort_values("rows").groupby("step")):
        ax.plot(points.rows, points.gbps, marker=MARKERS[n % len(MARKERS)], color=STEP_COLOURS[n % len(STEP_COLOURS)],
                linewidth=1.5, markersize=4, label=f"{step} {points.kernel.iloc[0]}")
    ax.set_xscale("log", base=2)
    ax.set_xticks(sides, [str(s) for s in sides])
    ax.minorticks_off()
    ax.set(ylim=(0, None), xlabel="N (a square N x N float32 matrix)", ylabel=GBPS)
    ax.grid()
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=SMALL + 1)
    ax.set_title(f"Transpose bandwidth against matrix size on {name}", weight="bold", fontsize=TITLE)
    return fig


# ---------------------------------------------------------------- the fold: figure 15

FOLD_DIMS, FOLD_PERM, FOLD_NAMES = "32,256,56,56", "0,2,3,1", "NCHW"   # NCHW to NHWC, as vision models run it


def fold_row(c, label, names, sizes, fills, w=4.5):
    """One row of dimensions at the cursor, a box each, its name and size in it; the x of each box's middle."""
    middles = c.strip(label, fills, [f"{name} {size}" for name, size in zip(names, sizes, strict=True)], w, 1.2,
                      gap=0.5, size=TEXT)
    c.y += 1.2
    return middles


def fig_15_fold():
    """Step 15: NCHW to NHWC folds to 32 transposes of 256 x 3136: H and W stay together, so they merge."""
    plan = machine.fold(FOLD_DIMS, FOLD_PERM)
    group = plan["folded_into"]   # per input dimension: the folded one it joined (-1: size 1, dropped)
    fill = [PALETTE[g] if g >= 0 else EMPTY for g in group]
    names = list(FOLD_NAMES)
    c = Canvas(f"Step 15's fold of [{FOLD_DIMS}] permuted by ({FOLD_PERM}): {plan['kind'].replace('_', ' ')}")
    top = fold_row(c, "in", names, plan["dims"], fill)
    c.y += 1.6
    out = fold_row(c, "out", [names[p] for p in plan["perm"]], [plan["dims"][p] for p in plan["perm"]],
                   [fill[p] for p in plan["perm"]])
    for i, p in enumerate(plan["perm"]):   # each input dimension to where the output puts it
        c.arrow((top[p], c.y - 2.8), (out[i], c.y - 1.25), color=MUTED)
    c.y += 1.6
    folded = ["+".join(names[d] for d in range(len(names)) if group[d] == f) for f in range(len(plan["folded_dims"]))]
    fold_row(c, "folded", folded, plan["folded_dims"], PALETTE[:len(folded)], w=6.0)
    c.y += 1.2
    c.line(f"batch {' x '.join(map(str, plan['batch_extent']))}: matrices "
           f"{', '.join(map(str, plan['batch_in_stride']))} elements apart in in, "
           f"{', '.join(map(str, plan['batch_out_stride']))} in out", size=TEXT)
    c.line(f"each {plan['rows']} x {plan['cols']}: its rows {plan['in_pitch']} apart in in, the rows of its "
           f"transpose {plan['out_pitch']} apart in out", size=TEXT)
    c.line("input dimensions that stay next to each other, in order, in the output are one dimension", color=MUTED)
    return c.done([(PALETTE[f], f"folded dimension {f}: {name}") for f, name in enumerate(folded)])


# ---------------------------------------------------------------- drawing everything

# Every fig_* function draws docs/img/fig-*.svg: fig_01_sectors() draws fig-01-sectors.svg.
FIGURES = {name.replace("_", "-"): draw for name, draw in sorted(globals().items()) if name.startswith("fig_")}


def drawings():
    """(file stem, figure) of every figure, then of each GPU's plots where its sweep has their shapes."""
    yield from ((stem, draw()) for stem, draw in FIGURES.items())
    for gpu in results.gpus().itertuples():
        frame = results.load(results.path(gpu.slug), "bench")
        frame = frame[frame.step.isin(machine.steps_of("float32"))]   # the plots follow the float32 steps
        for kind, plot in (("ladder", plot_ladder), ("sizes", plot_sizes)):
            fig = plot(gpu.name, frame)
            if fig is not None:
                yield f"{gpu.slug}-{kind}", fig


def main(argv=None) -> int:
    """Draw everything into docs/img/, or with --check say which committed file differs (exit 1)."""
    parser = machine.Parser(prog="python3 -m lab.figures", description=__doc__)
    parser.add_argument("--check", action="store_true", help="draw, but write nothing; exit 1 if a file differs")
    check, drawn, problems = parser.parse_args(argv).check, set(), []
    with matplotlib.rc_context(STYLE):
        for stem, fig in drawings():
            path, svg = IMG / f"{stem}.svg", io.BytesIO()
            fig.savefig(svg, format="svg", metadata=METADATA)
            drawn.add(path)
            if not check:
                path.write_bytes(svg.getvalue())
                print(f"wrote docs/img/{path.name}")
            elif not path.is_file() or path.read_bytes() != svg.getvalue():
                problems.append(f"docs/img/{path.name}: missing or out of date: python3 -m lab.figures draws it")
    problems += [f"docs/img/{path.name}: nothing in lab/figures.py draws it: delete it, or draw it there"
                 for path in sorted(IMG.glob("*.svg")) if check and path not in drawn]
    for problem in problems:
        print(f"figures: {problem}", file=sys.stderr)
    return machine.EXIT_WRONG if problems else 0


if __name__ == "__main__":
    raise SystemExit(machine.main(main))
