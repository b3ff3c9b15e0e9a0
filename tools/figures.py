#!/usr/bin/env python3
"""Draw the explanatory figures of the write-ups: docs/img/fig-*.svg.

Every picture is computed, not drawn by hand.  The functions under "Index
arithmetic" below re-implement the index expressions of the kernels in
steps/NN_name/*.cu, one small function per expression, each with a comment
naming the file and the line it mirrors.  The figure functions ask them which
addresses, 32-byte sectors, shared-memory banks or tiles one warp or one block
touches, and draw the answer.  If a kernel's indexing changes, change its
mirror here and run this script again: the figures and the numbers written in
them follow.

Usage:
  python3 tools/figures.py           write every figure to docs/img/
  python3 tools/figures.py --check   write nothing; exit 1 if a figure in
                                     docs/img/ differs from what this script
                                     would write, is missing, or is a
                                     fig-*.svg that no function here draws
                                     (and no docs/img/fig-*.dot describes)

Python 3 standard library only: the SVG is written as text.  Every figure has
a white background, a title and a one-line legend, uses generic font families
and no scripts or external resources, so it looks the same on GitHub, in the
Doxygen site (make docs) and in any browser.  fig-04 and fig-ladder-in-flight
also read the achieved occupancy (and the latter DRAM throughput) from
docs/results/h200-profile.csv, the committed Nsight Compute run.

Exit codes: 0 written (or up to date with --check), 1 out of date (--check).
"""
import argparse
import colorsys
import csv
import glob
import os
import sys
from xml.sax.saxutils import escape

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IMG_DIR = os.path.join(ROOT, "docs", "img")
PROFILE_CSV = os.path.join(ROOT, "docs", "results", "h200-profile.csv")

# ============================================================== hardware facts

WARP = 32            # threads per warp
FLOAT_BYTES = 4      # sizeof(float)
FLOAT4_BYTES = 16    # sizeof(float4): one 16-byte "chunk"
SECTOR_BYTES = 32    # global memory moves in 32-byte sectors
SMEM_BANKS = 32      # shared memory: 32 banks ...
BANK_BYTES = 4       # ... of 4 bytes: one wavefront moves 128 bytes
H200_SMS = 132                   # multiprocessors of an H200
H200_MAX_THREADS_PER_SM = 2048   # sm_90: 64 resident warps (full occupancy)

# The shape used where a figure needs one: 8192 x 8192, as in the README.
ROWS = 8192
COLS = 8192

# ============================================================== drawing style

WIDTH = 840                   # every figure is this wide (pixels)
MARGIN = 20                   # left and right margin
FONT = "DejaVu Sans, Helvetica, Arial, sans-serif"
MONO = "DejaVu Sans Mono, Menlo, Consolas, monospace"
TITLE_SIZE = 18
TEXT_SIZE = 14
SMALL_SIZE = 12               # the smallest text in any figure
TITLE_HEIGHT = 48             # space taken by the title
LEGEND_HEIGHT = 36            # space taken by the legend line at the bottom

INK = "#1f2328"               # text and outlines
MUTED = "#57606a"             # secondary text
GRID = "#afb8c1"              # cell outlines
EMPTY = "#ffffff"             # an unused cell
PAPER = "#ffffff"             # background
UNIT_FILL = "#eef2f6"         # a hardware unit in the block diagrams
GOOD = "#1a7f37"              # "conflict-free", "whole sectors"
BAD = "#cf222e"               # "k-way conflict", "wasted bytes"
HIGHLIGHT = "#f6a04d"         # step 10: the first wave of blocks
HIGHLIGHT_TEXT = "#9a4a00"
FADED = "#f2f4f6"             # step 10: tiles of later waves

# Qualitative colours for sectors (light enough for black text on them).
PALETTE = ["#9ad0f5", "#ffc078", "#a9e4a1", "#f7a8c4",
           "#c9b6ef", "#ffe58f", "#8fdbd0", "#ffa59e"]


def lane_colour(lane):
    """A light colour per lane, running through the hues from lane 0 to 31."""
    red, green, blue = colorsys.hls_to_rgb(0.83 * lane / WARP, 0.80, 0.70)
    return "#%02x%02x%02x" % (round(red * 255), round(green * 255),
                              round(blue * 255))


# ============================================================== SVG helpers


def _num(value):
    """A coordinate as short, stable text: 12, 12.5, 12.33."""
    if isinstance(value, int):
        return str(value)
    return ("%.2f" % value).rstrip("0").rstrip(".")


def _attrs(**attributes):
    """SVG attributes from keywords: font_size -> font-size; None is left out."""
    out = []
    for key, value in attributes.items():
        if value is None:
            continue
        if isinstance(value, (int, float)):
            value = _num(value)
        out.append(' %s="%s"' % (key.replace("_", "-"),
                                 escape(str(value), {'"': "&quot;"})))
    return "".join(out)


def rect(x, y, w, h, fill="none", stroke=None, stroke_width=1, rx=None,
         dash=None):
    """A rectangle; with stroke=None it has no outline."""
    return "<rect%s/>" % _attrs(
        x=x, y=y, width=w, height=h, rx=rx, fill=fill, stroke=stroke,
        stroke_width=stroke_width if stroke else None, stroke_dasharray=dash)


def text_width(string, size=TEXT_SIZE, weight=None, mono=False):
    """A generous estimate of the width of a line of text in pixels (DejaVu
    Sans, the widest of the fonts named in FONT, is about 0.5 em a character)."""
    em = 0.6 if mono else 0.52
    return len(string) * size * em * (1.08 if weight == "bold" else 1)


def text(x, y, string, size=TEXT_SIZE, anchor=None, weight=None, fill=None,
         mono=False):
    """A line of text; (x, y) is the left end of its baseline (or the middle
    or right end with anchor="middle" or "end")."""
    assert size >= SMALL_SIZE, "text smaller than %d px: %r" % (SMALL_SIZE, string)
    width = text_width(string, size, weight, mono)
    left = {"middle": x - width / 2, "end": x - width}.get(anchor, x)
    assert left >= 0 and left + width <= WIDTH, "text too long: %r" % string
    return "<text%s>%s</text>" % (
        _attrs(x=x, y=y, font_size=size if size != TEXT_SIZE else None,
               text_anchor=anchor, font_weight=weight, fill=fill,
               font_family=MONO if mono else None),
        escape(string))


def line(x1, y1, x2, y2, stroke=INK, width=1.5, dash=None, arrow=False):
    """A straight line, with an arrowhead at (x2, y2) when arrow is True."""
    return "<line%s/>" % _attrs(
        x1=x1, y1=y1, x2=x2, y2=y2, stroke=stroke, stroke_width=width,
        stroke_dasharray=dash,
        marker_end="url(#%s)" % _marker_id(stroke) if arrow else None)


def polyline(points, stroke=INK, width=1.5, dash=None, arrow=False):
    """A line through several points, with an arrowhead at the last one."""
    return "<polyline%s/>" % _attrs(
        points=" ".join("%s,%s" % (_num(x), _num(y)) for x, y in points),
        fill="none", stroke=stroke, stroke_width=width, stroke_dasharray=dash,
        marker_end="url(#%s)" % _marker_id(stroke) if arrow else None)


def grid_lines(x, y, columns, rows, cell_w, cell_h):
    """An empty grid of columns x rows cells, as one path."""
    width, height = columns * cell_w, rows * cell_h
    strokes = ["M%s,%sh%s" % (_num(x), _num(y + r * cell_h), _num(width))
               for r in range(rows + 1)]
    strokes += ["M%s,%sv%s" % (_num(x + c * cell_w), _num(y), _num(height))
                for c in range(columns + 1)]
    return "%s<path%s/>" % (rect(x, y, width, height, fill=EMPTY),
                            _attrs(d="".join(strokes), fill="none",
                                   stroke=GRID, stroke_width=1))


def group(items, dx=0, dy=0):
    """Several items moved together by (dx, dy)."""
    transform = "translate(%s,%s)" % (_num(dx), _num(dy)) if dx or dy else None
    return "<g%s>\n%s\n</g>" % (_attrs(transform=transform), "\n".join(items))


ARROW_COLOURS = (INK, MUTED, BAD, GOOD, HIGHLIGHT_TEXT)


def _marker_id(colour):
    """The id of the arrowhead of this colour (one of ARROW_COLOURS)."""
    assert colour in ARROW_COLOURS, "no arrowhead in colour %s" % colour
    return "arrow-" + colour.lstrip("#")


def _arrow_markers():
    """One arrowhead per arrow colour.  Every figure defines the same ones, so
    two figures inlined in one page cannot disagree about them."""
    markers = []
    for colour in ARROW_COLOURS:
        markers.append(
            '<marker id="%s" viewBox="0 0 10 10" refX="9" refY="5" '
            'markerWidth="8" markerHeight="8" orient="auto">'
            '<path d="M0,0 L10,5 L0,10 z" fill="%s"/></marker>'
            % (_marker_id(colour), colour))
    return "<defs>\n%s\n</defs>" % "\n".join(markers)


def legend_line(y, entries):
    """The one-line legend: entries are (swatch fill or None, label)."""
    items, x = [], MARGIN
    for fill, label in entries:
        if fill is not None:
            items.append(rect(x, y - 11, 14, 14, fill=fill, stroke=GRID))
            x += 20
        items.append(text(x, y, label, size=SMALL_SIZE, fill=MUTED))
        x += text_width(label, SMALL_SIZE) + 24
    assert x - 24 <= WIDTH - MARGIN, "legend too long: %r" % (entries,)
    return items


def svg_document(height, title, legend, body):
    """A whole figure: white background, title on top, legend at the bottom.

    body is a list of SVG items laid out between y = TITLE_HEIGHT and
    y = height - LEGEND_HEIGHT."""
    head = ('<svg xmlns="http://www.w3.org/2000/svg"%s>'
            % _attrs(width=WIDTH, height=height,
                     viewBox="0 0 %d %d" % (WIDTH, height),
                     font_family=FONT, font_size=TEXT_SIZE, fill=INK))
    parts = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        "<!-- Generated by tools/figures.py; do not edit by hand. -->",
        head,
        "<title>%s</title>" % escape(title),
        _arrow_markers(),
        rect(0, 0, WIDTH, height, fill=PAPER),
        text(MARGIN, 30, title, size=TITLE_SIZE, weight="bold"),
    ]
    parts.extend(body)
    parts.extend(legend_line(height - 14, legend))
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def thousands(n):
    """12345678 -> '12,345,678'."""
    return "{:,}".format(n)


def plural(n, word):
    return "%d %s%s" % (n, word, "" if n == 1 else "s")


# ============================================================== index arithmetic
#
# Each function mirrors the lines of one kernel named in its comment.  Lanes:
# CUDA numbers the threads of a block x-fastest, tid = threadIdx.y *
# blockDim.x + threadIdx.x, and a warp is 32 consecutive tid.


def lanes_of_warp(warp, block_x):
    """(lane, threadIdx.x, threadIdx.y) of the 32 lanes of a warp, for a
    block that is block_x threads wide."""
    for lane in range(WARP):
        tid = warp * WARP + lane
        yield lane, tid % block_x, tid // block_x


# steps/01_naive/naive.cu: BLOCK_COLS, BLOCK_ROWS
S01_BLOCK_COLS, S01_BLOCK_ROWS = 32, 8


def step01_naive(rows, cols, tile_y, tile_x, tx, ty):
    """(index into in, index into out) of thread (tx, ty).

    steps/01_naive/naive.cu, transpose_naive():
        row = tile_y * BLOCK_ROWS + threadIdx.y;
        col = tile_x * BLOCK_COLS + threadIdx.x;
        out[col * rows + row] = in[row * cols + col];
    """
    row = tile_y * S01_BLOCK_ROWS + ty
    col = tile_x * S01_BLOCK_COLS + tx
    return row * cols + col, col * rows + row


# steps/02_coalesced_write/coalesced_write.cu and steps/03_ldg/ldg.cu
S02_BLOCK_COLS, S02_BLOCK_ROWS = 32, 8


def step02_coalesced_write(rows, cols, tile_y, tile_x, tx, ty):
    """(index into in, index into out) of thread (tx, ty).

    steps/02_coalesced_write/coalesced_write.cu, transpose_coalesced_write(),
    and the same three lines in steps/03_ldg/ldg.cu, transpose_ldg():
        out_row = tile_y * BLOCK_ROWS + threadIdx.y;   // = column of `in`
        out_col = tile_x * BLOCK_COLS + threadIdx.x;   // = row of `in`
        out[out_row * rows + out_col] = in[out_col * cols + out_row];
    """
    out_row = tile_y * S02_BLOCK_ROWS + ty
    out_col = tile_x * S02_BLOCK_COLS + tx
    return out_col * cols + out_row, out_row * rows + out_col


# steps/04_unroll/unroll.cu: the 2D block of unroll4 and unroll8
S04_BLOCK_COLS, S04_BLOCK_ROWS = 32, 8


def step04_unrolled(rows, cols, unroll, block_y, tile_y, tile_x, tx, ty, k):
    """(index into in, index into out) of element k of thread (tx, ty).

    steps/04_unroll/unroll.cu, transpose_unrolled<UNROLL>():
        tile_w = blockDim.x;  tile_h = blockDim.y * UNROLL;
        out_col = tile_x * tile_w + threadIdx.x;
        out_row0 = tile_y * tile_h + threadIdx.y;
        out_row = out_row0 + k * blockDim.y;
        v[k] = __ldg(&in[out_col * cols + out_row]);   // all loads first
        out[out_row * rows + out_col] = v[k];          // then all stores
    """
    tile_w = S04_BLOCK_COLS
    tile_h = block_y * unroll
    out_col = tile_x * tile_w + tx
    out_row = tile_y * tile_h + ty + k * block_y
    return out_col * cols + out_row, out_row * rows + out_col


# steps/05_float4/float4.cu: QUAD, BLOCK_QUADS_X, BLOCK_QUADS_Y
S05_QUAD, S05_BLOCK_QUADS_X, S05_BLOCK_QUADS_Y = 4, 8, 32


def step05_float4(rows, cols, tile_y, tile_x, tx, ty, i):
    """(float4 index into in, float4 index into out) of load i and store i
    of thread (tx, ty), for 16-byte aligned pointers (row_shift = col_shift
    = 0) and rows, cols multiples of 4: the float4 paths.

    steps/05_float4/float4.cu, transpose_float4():
        qr = tile_x * BLOCK_QUADS_X + threadIdx.x;   // quad index down `in`
        qc = tile_y * BLOCK_QUADS_Y + threadIdx.y;   // quad index along a row
        r0 = qr * QUAD - row_shift;  c0 = qc * QUAD - col_shift;
    load_quad_float4():   in4[(r0 + i) * row_float4s + qc]    (cols / QUAD)
    store_quad_float4():  out4[(c0 + j) * row_float4s + qr]   (rows / QUAD)
    """
    qr = tile_x * S05_BLOCK_QUADS_X + tx
    qc = tile_y * S05_BLOCK_QUADS_Y + ty
    r0 = qr * S05_QUAD
    c0 = qc * S05_QUAD
    load = (r0 + i) * (cols // S05_QUAD) + qc
    store = (c0 + i) * (rows // S05_QUAD) + qr
    return load, store


# Steps 06, 07 and 08 share one kernel body (transpose_shared,
# transpose_shared_padded, transpose_shared_swizzle), templated on TILE and
# BLOCK_ROWS.  These two functions mirror its two shared accesses; the three
# functions after them mirror the three tile layouts.


def tile_store_element(tx, ty, i, block_rows):
    """(r, c) of the tile element thread (tx, ty) writes in iteration i.

    steps/06_shared/shared.cu (and 07, 08), the load loop:
        r = threadIdx.y + i * BLOCK_ROWS;      // row inside the tile
        tile[r][threadIdx.x] = in[in_row * cols + in_col];
    """
    return ty + i * block_rows, tx


def tile_load_element(tx, ty, i, block_rows):
    """(r, c) of the tile element thread (tx, ty) reads in iteration i.

    steps/06_shared/shared.cu (and 07, 08), the store loop:
        r = threadIdx.y + i * BLOCK_ROWS;      // column inside the tile
        out[out_row * rows + out_col] = tile[threadIdx.x][r];
    """
    return tx, ty + i * block_rows


def step06_word(r, c, tile):
    """steps/06_shared/shared.cu: __shared__ float tile[TILE][TILE];
    tile[r][c] is word r * TILE + c."""
    return r * tile + c


S07_TILE_PADDING = 1   # steps/07_shared_padded/shared_padded.cu: TILE_PADDING


def step07_word(r, c, tile):
    """steps/07_shared_padded/shared_padded.cu:
    __shared__ float tile[TILE][TILE + TILE_PADDING];
    tile[r][c] is word r * (TILE + TILE_PADDING) + c."""
    return r * (tile + S07_TILE_PADDING) + c


def swizzled_col(r, c):
    """steps/08_shared_swizzle/shared_swizzle.cu, swizzled_col(): c ^ r."""
    return c ^ r


def step08_word(r, c, tile):
    """steps/08_shared_swizzle/shared_swizzle.cu: element (r, c) lives at
    tile[r][swizzled_col(r, c)] of float tile[TILE][TILE]."""
    return r * tile + swizzled_col(r, c)


# common/tile64.cuh: the 64x64 tile of steps 09 and 10 (TILE, VEC, ...)
S09_TILE, S09_VEC = 64, 4
S09_CHUNKS_PER_ROW = S09_TILE // S09_VEC             # CHUNKS_PER_ROW = 16
S09_THREADS = 32 * 8                                 # THREADS = 256
S09_ROWS_PER_PASS = S09_THREADS // S09_CHUNKS_PER_ROW  # ROWS_PER_PASS = 16
S09_BANK_GROUPS = SMEM_BANKS // S09_VEC              # BANK_GROUPS = 8


def step09_chunk_slot(row, chunk):
    """common/tile64.cuh, chunk_slot(), the layout of the 16-byte kernels
    of steps 09 and 10:
        row * CHUNKS_PER_ROW + (chunk ^ ((row / VEC) % BANK_GROUPS))"""
    return row * S09_CHUNKS_PER_ROW + (chunk ^ ((row // S09_VEC) % S09_BANK_GROUPS))


def step09_store_slot(tid, p, slot=step09_chunk_slot):
    """float4 slot of the tile that thread tid writes in pass p.

    steps/09_shared64/shared64.cuh, transpose_shared64_vec4() (and step 10's
    transpose_async64()):
        load_row = tid / CHUNKS_PER_ROW;  load_chunk = tid % CHUNKS_PER_ROW;
        tile[chunk_slot(load_row + p * ROWS_PER_PASS, load_chunk)] = v[p];
    """
    load_row = tid // S09_CHUNKS_PER_ROW
    load_chunk = tid % S09_CHUNKS_PER_ROW
    return slot(load_row + p * S09_ROWS_PER_PASS, load_chunk)


def step09_load_slot(tid, k, slot=step09_chunk_slot):
    """float4 slot of the tile that thread tid reads as row k of its 4x4 block.

    steps/09_shared64/shared64.cuh, transpose_shared64_vec4() (and step 10's
    transpose_async64()):
        group = tid % CHUNKS_PER_ROW;  block_col = tid / CHUNKS_PER_ROW;
        b[k] = tile[chunk_slot(group * VEC + k, block_col)];
    """
    group = tid % S09_CHUNKS_PER_ROW
    block_col = tid // S09_CHUNKS_PER_ROW
    return slot(group * S09_VEC + k, block_col)


def step09_word_slot(row, col):
    """common/tile64.cuh, word_slot(), the layout of the 4-byte kernels of
    steps 09 and 10:
        row * TILE + (col ^ (row % SMEM_BANKS))"""
    return row * S09_TILE + (col ^ (row % SMEM_BANKS))


# Chunk layouts that the step 09 write-up compares with the swizzle (its
# table of wavefronts per LDS.128).  They are not in any kernel.
def plain_chunk_slot(row, chunk):
    """Rows of 16 chunks, chunk c at position c."""
    return row * S09_CHUNKS_PER_ROW + chunk


def padded_row_chunk_slot(row, chunk):
    """Every row padded by one chunk: a row stride of 17 chunks."""
    return row * (S09_CHUNKS_PER_ROW + 1) + chunk


def padded_4rows_chunk_slot(row, chunk):
    """One chunk of padding after every 4 rows."""
    return row * S09_CHUNKS_PER_ROW + row // S09_VEC + chunk


# steps/10_shared64_async/shared64_async.cu
S10_TILE = 64
S10_COLUMN_BANDS = 0x80000000          # COLUMN_BANDS
S10_COLUMN_MAJOR = S10_COLUMN_BANDS | 1  # COLUMN_MAJOR = COLUMN_BAND(1)
S10_ROW_MAJOR = 1                       # GROUP 1, the row_async variant


def raster_tile(t, tiles_y, tiles_x, order):
    """(tile_y, tile_x) that block t works on.

    steps/10_shared64_async/shared64_async.cu, raster_tile():
        if (order & COLUMN_BANDS) {   // bands of tile columns: transposed
            raster_tile(t, tiles_x, tiles_y, order & ~COLUMN_BANDS,
                        tile_x, tile_y);
            return;
        }
        group = order < tiles_y ? order : tiles_y;
        band = t / (group * tiles_x);
        first = band * group;
        height = tiles_y - first < group ? tiles_y - first : group;
        local = t - band * group * tiles_x;
        *tile_y = first + local % height;
        *tile_x = local / height;
    """
    if order & S10_COLUMN_BANDS:
        tile_x, tile_y = raster_tile(t, tiles_x, tiles_y,
                                     order & ~S10_COLUMN_BANDS)
        return tile_y, tile_x
    group = order if order < tiles_y else tiles_y
    band = t // (group * tiles_x)
    first = band * group
    height = tiles_y - first if tiles_y - first < group else group
    local = t - band * group * tiles_x
    return first + local % height, local // height


# ============================================================== what the hardware does


def sectors_of(accesses):
    """Group one warp instruction's accesses by 32-byte sector.

    accesses: (lane, byte address, bytes) per lane.  Returns {sector:
    [(lane, first 4-byte word inside the sector, words)]}, sorted by sector.
    """
    sectors = {}
    for lane, address, size in accesses:
        sector = address // SECTOR_BYTES
        assert (address + size - 1) // SECTOR_BYTES == sector, \
            "an aligned access never straddles two sectors"
        word = address % SECTOR_BYTES // FLOAT_BYTES
        sectors.setdefault(sector, []).append((lane, word, size // FLOAT_BYTES))
    return dict(sorted(sectors.items()))


def wavefronts_4byte(words):
    """How one warp's 4-byte shared access is served.

    words[lane] is the 4-byte word address.  A bank serves one word per
    wavefront; lanes on the same word share it (broadcast).  Returns one dict
    per wavefront, {bank: [lanes]}.
    """
    rows, distinct = [], {}
    for lane, word in enumerate(words):
        bank = word % SMEM_BANKS
        in_bank = distinct.setdefault(bank, [])
        if word not in in_bank:
            in_bank.append(word)
        wavefront = in_bank.index(word)
        while len(rows) <= wavefront:
            rows.append({})
        rows[wavefront].setdefault(bank, []).append(lane)
    return rows


def wavefronts_16byte(slots):
    """How one warp's 16-byte shared access is served, in the model the step
    09 write-up uses: one quarter-warp (8 lanes, 128 bytes) at a time; in it,
    chunk slot s lies in bank group s % 8 (banks 4 (s % 8) .. 4 (s % 8) + 3),
    and a group serves one chunk per wavefront.

    Returns one (quarter, {first bank: [lanes]}) per wavefront.
    """
    rows = []
    lanes_per_quarter = WARP // 4
    for quarter in range(4):
        quarter_rows, distinct = [], {}
        for lane in range(quarter * lanes_per_quarter,
                          (quarter + 1) * lanes_per_quarter):
            slot = slots[lane]
            bank_group = slot % S09_BANK_GROUPS
            in_group = distinct.setdefault(bank_group, [])
            if slot not in in_group:
                in_group.append(slot)
            wavefront = in_group.index(slot)
            while len(quarter_rows) <= wavefront:
                quarter_rows.append({})
            first_bank = bank_group * S09_VEC
            quarter_rows[wavefront].setdefault(first_bank, []).append(lane)
        rows.extend((quarter, row) for row in quarter_rows)
    return rows


def conflict_ways_16byte(rows):
    """Wavefronts of the worst quarter-warp: the n of an n-way conflict."""
    per_quarter = {}
    for quarter, _ in rows:
        per_quarter[quarter] = per_quarter.get(quarter, 0) + 1
    return max(per_quarter.values())


def describe_indices(name, indices):
    """'in[0], in[1], ..., in[31]' plus the stride, for a list of indices."""
    first, last = indices[0], indices[-1]
    steps = {b - a for a, b in zip(indices[:-1], indices[1:], strict=True)}
    if len(steps) == 1:
        step = steps.pop()
        return "%s[%s], %s[%s], ..., %s[%s]: %s apart" % (
            name, thousands(first), name, thousands(indices[1]), name,
            thousands(last), plural(step, "element"))
    return "%s[%s] .. %s[%s]" % (name, thousands(min(indices)), name,
                                 thousands(max(indices)))


# ============================================================== fig-01-memory-system


def fig_01_memory_system():
    """A warp's request through L1TEX, L2 and DRAM, with the Nsight Compute
    metrics the write-ups quote at the place where each is counted."""
    unit_x, unit_w = MARGIN, 250
    metric_x = unit_x + unit_w + 40
    items = []
    y = TITLE_HEIGHT + 10

    def unit(y0, height, name, detail):
        items.append(rect(unit_x, y0, unit_w, height, fill=UNIT_FILL,
                          stroke=INK, rx=6))
        items.append(text(unit_x + 12, y0 + 24, name, weight="bold"))
        for n, string in enumerate(detail):
            items.append(text(unit_x + 12, y0 + 44 + 17 * n, string,
                              size=SMALL_SIZE, fill=MUTED))

    def metrics(y0, blocks):
        """blocks: (what it counts, [metric names]); returns the new y."""
        for heading, names in blocks:
            items.append(text(metric_x, y0 + 13, heading, size=TEXT_SIZE - 1))
            y0 += 18
            for name in names:
                items.append(text(metric_x + 10, y0 + 13, name,
                                  size=SMALL_SIZE, mono=True))
                y0 += 16
            y0 += 8
        return y0

    def arrow_down(y0, label):
        middle = unit_x + unit_w / 2
        items.append(line(middle, y0, middle, y0 + 34, arrow=True))
        items.append(text(middle + 10, y0 + 22, label, size=SMALL_SIZE,
                          fill=MUTED))
        return y0 + 36

    # The SM and its warps.
    top = y
    end = metrics(top + 4, [
        ("achieved occupancy: resident warps / 64 per SM",
         ["sm__warps_active.avg.pct_of_peak_sustained_active"]),
    ])
    unit(top, max(end - top, 70), "SM: warps of 32 lanes",
         ["one instruction of a warp", "= one request"])
    y = max(end, top + 70)
    y = arrow_down(y, "global and shared ld / st")

    # L1TEX: the global side and shared memory.
    top = y
    global_top = top + 34
    end_global = metrics(global_top, [
        ("requests: warp instructions to global memory",
         ["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
          "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"]),
        ("32-byte sectors they touch (/ requests = sectors per request)",
         ["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
          "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"]),
        ("share of sectors found in L1 (loads and stores mixed)",
         ["l1tex__t_sector_hit_rate.pct"]),
    ])
    shared_top = end_global + 6
    end_shared = metrics(shared_top, [
        ("wavefronts: passes through the 32 banks",
         ["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
          "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"]),
        ("bank conflicts: extra wavefronts (and other waits)",
         ["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
          "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"]),
    ])
    items.append(rect(unit_x, top, unit_w, end_shared - top + 6,
                      fill=UNIT_FILL, stroke=INK, rx=6))
    items.append(text(unit_x + 12, top + 24, "L1TEX: one per SM", weight="bold"))
    inner_x, inner_w = unit_x + 12, unit_w - 24
    items.append(rect(inner_x, global_top, inner_w, end_global - global_top - 6,
                      fill=PAPER, stroke=GRID, rx=4))
    items.append(text(inner_x + 10, global_top + 22, "global memory path",
                      weight="bold", size=TEXT_SIZE - 1))
    for n, string in enumerate(["tags in 32-byte sectors,",
                                "L1 = texture cache",
                                "(one unit since Volta)"]):
        items.append(text(inner_x + 10, global_top + 42 + 16 * n, string,
                          size=SMALL_SIZE, fill=MUTED))
    items.append(rect(inner_x, shared_top, inner_w, end_shared - shared_top - 6,
                      fill=PAPER, stroke=GRID, rx=4))
    items.append(text(inner_x + 10, shared_top + 22, "shared memory",
                      weight="bold", size=TEXT_SIZE - 1))
    for n, string in enumerate(["32 banks x 4 bytes:",
                                "128 bytes per wavefront"]):
        items.append(text(inner_x + 10, shared_top + 42 + 16 * n, string,
                          size=SMALL_SIZE, fill=MUTED))
    for y0, y1 in ((global_top, end_global - 6), (shared_top, end_shared - 6)):
        items.append(line(metric_x - 14, y0 + 4, metric_x - 14, y1 - 2,
                          stroke=GRID, width=3))
    y = end_shared + 6
    y = arrow_down(y, "load misses and every store, in sectors")

    # L2.
    top = y
    end = metrics(top + 4, [
        ("sectors read from and written to L2",
         ["lts__t_sectors_op_read.sum", "lts__t_sectors_op_write.sum"]),
        ("sectors found in L2", ["lts__t_sector_hit_rate.pct"]),
    ])
    unit(top, end - top, "L2: shared by all SMs",
         ["merges partial-sector writes", "before they go to DRAM"])
    y = end
    y = arrow_down(y, "L2 misses and write-backs")

    # DRAM.
    top = y
    end = metrics(top + 4, [
        ("bytes moved by the memory itself",
         ["dram__bytes_read.sum", "dram__bytes_write.sum"]),
        ("how busy DRAM was",
         ["dram__throughput.avg.pct_of_peak_sustained_elapsed"]),
    ])
    unit(top, end - top, "DRAM (HBM)", ["a transpose reads and writes",
                                       "every byte once, at best"])
    y = end + 10

    return svg_document(
        y + LEGEND_HEIGHT,
        "Where Nsight Compute counts a warp's memory traffic",
        [(UNIT_FILL, "hardware unit"),
         (None, "monospace: a metric counted there (make profile)"),
         (None, "arrows: the way of a load (stores too)")],
        items)


# ============================================================== fig-NN-sectors

LANE_CELL = 22                 # width of one lane in the lane strip
WORD_CELL = 20                 # width of one 4-byte word in a sector box
SECTOR_WIDTH = 8 * WORD_CELL   # 8 words = 32 bytes
SECTOR_GAP = 26
SECTORS_PER_ROW = 4
SECTOR_ROW_HEIGHT = 46
STRIP_X = MARGIN + 52          # where the lane strip and sector boxes start


def sector_panel(y, heading, detail, accesses, row_bytes):
    """One side (load or store) of one warp instruction: a strip of the 32
    lanes, coloured by the sector each one hits, and the sectors as boxes of
    eight 4-byte words, with every used word labelled by its lane.
    row_bytes is the length of a row of the matrix accessed, to name the
    row each sector lies in.  Returns (items, y below the panel)."""
    sectors = sectors_of(accesses)
    colour = {s: PALETTE[n % len(PALETTE)] for n, s in enumerate(sectors)}
    lane_sector = {lane: s for s, hits in sectors.items() for lane, _, _ in hits}
    items = [text(MARGIN, y + 14, heading, weight="bold"),
             text(MARGIN, y + 33, detail, size=SMALL_SIZE, fill=MUTED)]
    y += 44
    items.append(text(STRIP_X - 8, y + 15, "lane", size=SMALL_SIZE,
                      anchor="end", fill=MUTED))
    for lane in range(WARP):
        x = STRIP_X + lane * LANE_CELL
        items.append(rect(x, y, LANE_CELL, LANE_CELL,
                          fill=colour[lane_sector[lane]], stroke=GRID))
        items.append(text(x + LANE_CELL / 2, y + 15, str(lane),
                          size=SMALL_SIZE, anchor="middle"))
    y += LANE_CELL + 10
    for n, (sector, hits) in enumerate(sectors.items()):
        x = STRIP_X + (n % SECTORS_PER_ROW) * (SECTOR_WIDTH + SECTOR_GAP)
        top = y + (n // SECTORS_PER_ROW) * SECTOR_ROW_HEIGHT
        row = sector * SECTOR_BYTES // row_bytes
        items.append(text(x, top + 12, "sector %s, row %d" % (thousands(sector),
                                                             row),
                          size=SMALL_SIZE, fill=MUTED))
        for word in range(8):
            items.append(rect(x + word * WORD_CELL, top + 16, WORD_CELL, 22,
                              fill=EMPTY, stroke=GRID))
        for lane, word, words in hits:
            items.append(rect(x + word * WORD_CELL, top + 16, words * WORD_CELL,
                              22, fill=colour[sector], stroke=INK))
            items.append(text(x + (word + words / 2) * WORD_CELL, top + 32,
                              str(lane), size=SMALL_SIZE, anchor="middle"))
    rows = (len(sectors) + SECTORS_PER_ROW - 1) // SECTORS_PER_ROW
    y += rows * SECTOR_ROW_HEIGHT + 4
    useful = sum(size for _, _, size in accesses)
    moved = len(sectors) * SECTOR_BYTES
    verdict = ("%s for %d useful bytes: every byte of every sector is used"
               % (plural(len(sectors), "sector"), useful) if useful == moved else
               "%s for %d useful bytes: %d of every %d bytes are used"
               % (plural(len(sectors), "sector"), useful,
                  useful // len(sectors), SECTOR_BYTES))
    items.append(text(MARGIN, y + 14, verdict, weight="bold",
                      fill=GOOD if useful == moved else BAD))
    return items, y + 34


def sector_figure(title, panels):
    """panels: (heading, detail, accesses, row bytes) for the load side and
    the store side."""
    items, y = [], TITLE_HEIGHT + 4
    for heading, detail, accesses, row_bytes in panels:
        panel, y = sector_panel(y, heading, detail, accesses, row_bytes)
        items.extend(panel)
        y += 10
    return svg_document(
        y + LEGEND_HEIGHT, title,
        [(PALETTE[0], "4-byte word used by the lane in it"),
         (EMPTY, "word not used"),
         (None, "sector = byte offset / 32; row: of in or out")],
        items)


def scalar_sector_figure(step, index_of, block_cols, load_text, store_text):
    """Sectors one warp of a one-float-per-thread kernel touches: steps 01 and 02."""
    loads, stores, in_idx, out_idx = [], [], [], []
    for lane, tx, ty in lanes_of_warp(0, block_cols):
        i, o = index_of(ROWS, COLS, 0, 0, tx, ty)
        in_idx.append(i)
        out_idx.append(o)
        loads.append((lane, i * FLOAT_BYTES, FLOAT_BYTES))
        stores.append((lane, o * FLOAT_BYTES, FLOAT_BYTES))
    where = "warp 0 of block (0, 0), lane = threadIdx.x: "
    return sector_figure(
        "Step %s: the sectors one warp touches (%d x %d)" % (step, ROWS, COLS),
        [(load_text, where + describe_indices("in", in_idx), loads, COLS * FLOAT_BYTES),
         (store_text, where + describe_indices("out", out_idx), stores,
          ROWS * FLOAT_BYTES)])


def fig_01_sectors():
    """Step 01: coalesced loads (4 sectors), strided stores (32 sectors)."""
    return scalar_sector_figure("01", step01_naive, S01_BLOCK_COLS,
                                "load: in[row * cols + col]", "store: out[col * rows + row]")


def fig_02_sectors():
    """Step 02: strided loads (32 sectors), coalesced stores (4 sectors)."""
    return scalar_sector_figure("02", step02_coalesced_write, S02_BLOCK_COLS,
                                "load: in[out_col * cols + out_row]",
                                "store: out[out_row * rows + out_col]")


def fig_05_sectors():
    """Step 05: float4 loads and stores, 16 sectors for 512 bytes each."""
    loads, stores = [], []
    for lane, tx, ty in lanes_of_warp(0, S05_BLOCK_QUADS_X):
        load, store = step05_float4(ROWS, COLS, 0, 0, tx, ty, 0)
        loads.append((lane, load * FLOAT4_BYTES, FLOAT4_BYTES))
        stores.append((lane, store * FLOAT4_BYTES, FLOAT4_BYTES))
    in_rows = sorted({address // (COLS * FLOAT_BYTES) for _, address, _ in loads})
    out_rows = sorted({address // (ROWS * FLOAT_BYTES) for _, address, _ in stores})
    where = "warp 0 of block (0, 0), lane = 8 threadIdx.y + threadIdx.x; "
    return sector_figure(
        "Step 05: the sectors one warp's float4 access touches (%d x %d)"
        % (ROWS, COLS),
        [("load i = 0 (of 4): in4[(r0 + i) * (cols / 4) + qc]",
          where + "16 bytes from each of rows %s of in"
          % ", ".join(map(str, in_rows)), loads, COLS * FLOAT_BYTES),
         ("store j = 0 (of 4): out4[(c0 + j) * (rows / 4) + qr]",
          where + "16 bytes to each of rows %s of out"
          % ", ".join(map(str, out_rows)), stores, ROWS * FLOAT_BYTES)])


# ============================================================== fig-NN-banks

BANK_CELL = 22                              # width of one bank column
GRID_X = WIDTH - MARGIN - SMEM_BANKS * BANK_CELL   # the grid's left edge
BANK_ROW = 22                               # height of one wavefront row


def bank_panel(y, heading, detail, rows, banks_per_access, row_label, verdict,
               good):
    """One shared access of one warp: a 32-column bank grid, one row per
    wavefront, each lane drawn in the bank (or 4-bank group) it hits.

    rows: one {first bank: [lanes]} per wavefront; row_label(n) names row n.
    Returns (items, y below the panel)."""
    items = [text(MARGIN, y + 14, heading, weight="bold"),
             text(MARGIN, y + 32, detail, size=SMALL_SIZE, fill=MUTED)]
    y += 44
    if banks_per_access > 1:
        items.append(text(GRID_X - 8, y + 12, "bank group", size=SMALL_SIZE,
                          anchor="end", fill=MUTED))
        for first in range(0, SMEM_BANKS, banks_per_access):
            x = GRID_X + first * BANK_CELL
            items.append(rect(x + 2, y + 1, banks_per_access * BANK_CELL - 4, 15,
                              fill=FADED))
            items.append(text(x + banks_per_access * BANK_CELL / 2, y + 13,
                              str(first // banks_per_access), size=SMALL_SIZE,
                              anchor="middle", fill=MUTED))
        y += 18
    items.append(text(GRID_X - 8, y + 12, "bank", size=SMALL_SIZE,
                      anchor="end", fill=MUTED))
    for bank in range(SMEM_BANKS):
        items.append(text(GRID_X + (bank + 0.5) * BANK_CELL, y + 12, str(bank),
                          size=SMALL_SIZE, anchor="middle", fill=MUTED))
    y += 18
    items.append(grid_lines(GRID_X, y, SMEM_BANKS, len(rows), BANK_CELL,
                            BANK_ROW))
    for n, row in enumerate(rows):
        top = y + n * BANK_ROW
        items.append(text(GRID_X - 8, top + 16, row_label(n), size=SMALL_SIZE,
                          anchor="end"))
        for first_bank, lanes in sorted(row.items()):
            x = GRID_X + first_bank * BANK_CELL
            width = banks_per_access * BANK_CELL
            items.append(rect(x, top, width, BANK_ROW,
                              fill=lane_colour(lanes[0]), stroke=INK))
            label = ",".join(map(str, lanes))
            if banks_per_access > 1:
                label = "lane " + label
            items.append(text(x + width / 2, top + 16, label, size=SMALL_SIZE,
                              anchor="middle"))
    y += len(rows) * BANK_ROW + 8
    items.append(text(MARGIN, y + 14, verdict, weight="bold",
                      fill=GOOD if good else BAD))
    return items, y + 30


def verdict_4byte(rows):
    """'32-way conflict: 32 wavefronts' or 'conflict-free: 1 wavefront'."""
    n = len(rows)
    if n == 1:
        return "conflict-free: 1 wavefront", True
    return "%d-way conflict: %d wavefronts" % (n, n), False


def words_of_warp(warp, block_x, block_rows, tile, i, side, word):
    """The shared word each lane of a warp of the step 06-08 kernel accesses.

    side is tile_store_element or tile_load_element; word is the layout."""
    words = []
    for _, tx, ty in lanes_of_warp(warp, block_x):
        r, c = side(tx, ty, i, block_rows)
        words.append(word(r, c, tile))
    return words


def tile_kernel_panels(y, name, tile, block_rows, warp, word, store_text,
                       load_text):
    """The store and the load panel of one variant of the step 06-08 kernel."""
    items = []
    block_x = tile
    lanes = list(lanes_of_warp(warp, block_x))
    ty_values = sorted({ty for _, _, ty in lanes})
    lane_is = ("threadIdx.x" if block_x == WARP
               else "%d threadIdx.y + threadIdx.x - %d"
               % (block_x, warp * WARP) if warp else
               "%d threadIdx.y + threadIdx.x" % block_x)
    iterations = tile // block_rows
    if iterations == 1:
        when = "r = threadIdx.y"
    else:
        when = "i = 0 of %d, so r = threadIdx.y" % iterations
        if len(ty_values) == 1:
            when += " = %d" % ty_values[0]
    who = ("%s (block %d x %d): warp %d = threadIdx.y %s, lane = %s; %s"
           % (name, tile, block_rows, warp, " and ".join(map(str, ty_values)),
              lane_is, when))
    for side, heading, formula in (
            (tile_store_element, "shared STORE (writing the tile):", store_text),
            (tile_load_element, "shared LOAD (reading it transposed):",
             load_text)):
        words = words_of_warp(warp, block_x, block_rows, tile, 0, side, word)
        rows = wavefronts_4byte(words)
        verdict, good = verdict_4byte(rows)
        panel, y = bank_panel(
            y, "%s %s" % (heading, formula), who, rows, 1,
            lambda n: "wavefront %d" % (n + 1), verdict, good)
        items.extend(panel)
    return items, y


BANKS_LEGEND = [(lane_colour(0), "lane 0"), (lane_colour(16), "lane 16"),
                (lane_colour(31), "lane 31, drawn in the bank it hits"),
                (EMPTY, "idle bank"), (None, "bank = word % 32")]


def fig_06_banks():
    """Step 06: rows of the tile are conflict-free, columns 32-way."""
    items, y = tile_kernel_panels(
        TITLE_HEIGHT + 4, "shared_32x8", 32, 8, 5, step06_word,
        "tile[r][threadIdx.x], word 32 r + threadIdx.x",
        "tile[threadIdx.x][r], word 32 threadIdx.x + r")
    # The other block shapes of the same kernel, counted the same way.
    counts = []
    for name, tile, block_rows in (("shared_32x32", 32, 32),
                                   ("shared_16x16", 16, 16),
                                   ("shared_8x8", 8, 8)):
        ways = [len(wavefronts_4byte(words_of_warp(0, tile, block_rows, tile,
                                                   0, side, step06_word)))
                for side in (tile_store_element, tile_load_element)]
        counts.append("%s: store %d, load %d" % (name, ways[0], ways[1]))
    items.append(text(MARGIN, y + 10, "The other variants, counted the same way "
                      "(wavefronts, warp 0): " + "; ".join(counts[:1]) + ";",
                      size=SMALL_SIZE, fill=MUTED))
    items.append(text(MARGIN, y + 28, "; ".join(counts[1:]) + ".",
                      size=SMALL_SIZE, fill=MUTED))
    return svg_document(
        y + 40 + LEGEND_HEIGHT,
        "Step 06: shared-memory banks of one warp, float tile[32][32]",
        BANKS_LEGEND, items)


def fig_07_banks():
    """Step 07: padding makes both sides of the 32x32 tile conflict-free; the
    16x16 variant keeps a 2-way conflict on both."""
    items, y = tile_kernel_panels(
        TITLE_HEIGHT + 4, "shared_padded", 32, 8, 5, step07_word,
        "tile[r][threadIdx.x], word 33 r + threadIdx.x",
        "tile[threadIdx.x][r], word 33 threadIdx.x + r")
    y += 6
    items.append(line(MARGIN, y, WIDTH - MARGIN, y, stroke=GRID, width=1))
    more, y = tile_kernel_panels(
        y + 10, "shared_padded_16x16", 16, 16, 0, step07_word,
        "tile[y][x], word 17 y + x", "tile[x][y], word 17 x + y")
    items.extend(more)
    return svg_document(
        y + LEGEND_HEIGHT,
        "Step 07: shared-memory banks of one warp, padded tile[T][T + 1]",
        BANKS_LEGEND, items)


def fig_08_banks():
    """Step 08: the XOR swizzle, conflict-free for both block shapes."""
    items, y = tile_kernel_panels(
        TITLE_HEIGHT + 4, "shared_swizzle", 32, 8, 5, step08_word,
        "tile[r][threadIdx.x ^ r]",
        "tile[threadIdx.x][r ^ threadIdx.x]")
    y += 6
    items.append(line(MARGIN, y, WIDTH - MARGIN, y, stroke=GRID, width=1))
    more, y = tile_kernel_panels(
        y + 10, "shared_swizzle_16x16", 16, 16, 0, step08_word,
        "tile[y][x ^ y], word 16 y + (x ^ y)",
        "tile[x][y ^ x], word 16 x + (y ^ x)")
    items.extend(more)
    return svg_document(
        y + LEGEND_HEIGHT,
        "Step 08: shared-memory banks of one warp, swizzled tile[r][c ^ r]",
        BANKS_LEGEND, items)


def fig_09_banks():
    """Step 09: 16-byte accesses through the chunk swizzle, and what the same
    LDS.128 costs without it."""
    items, y = [], TITLE_HEIGHT + 4
    warp_tids = range(WARP)            # warp 0: tid = lane

    def quarter_label(rows):
        def label(n):
            quarter = rows[n][0]
            lanes = "lanes %d-%d" % (8 * quarter, 8 * quarter + 7)
            first = [q for q, _ in rows].index(quarter)
            return "%s, wf %d" % (lanes, n - first + 1)
        return label

    def panel(y, heading, detail, slots):
        rows = wavefronts_16byte(slots)
        ways = conflict_ways_16byte(rows)
        if ways == 1:
            verdict = ("no conflict: %d wavefronts, one per quarter-warp "
                       "(the minimum for 512 bytes)" % len(rows))
        else:
            verdict = ("%d-way conflict: %d wavefronts for the warp, %d per "
                       "quarter-warp" % (ways, len(rows), ways))
        return bank_panel(y, heading, detail, [r for _, r in rows], S09_VEC,
                          quarter_label(rows), verdict, ways == 1)

    detail = ("vec4 (block 32 x 8): warp 0, lane = tid; a float4 chunk fills "
              "4 banks; one quarter-warp is served at a time")
    store_slots = [step09_store_slot(tid, 0) for tid in warp_tids]
    load_slots = [step09_load_slot(tid, 0) for tid in warp_tids]
    more, y = panel(y, "shared STORE: tile[chunk_slot(load_row, load_chunk)]",
                    detail + " (pass p = 0)", store_slots)
    items.extend(more)
    more, y = panel(y, "shared LOAD: tile[chunk_slot(group * 4 + k, block_col)]",
                    detail + " (k = 0)", load_slots)
    items.extend(more)

    # The same LDS.128 without the swizzle: lanes 0-7 only, to keep it short.
    y += 6
    items.append(line(MARGIN, y, WIDTH - MARGIN, y, stroke=GRID, width=1))
    plain = [step09_load_slot(tid, 0, plain_chunk_slot) for tid in warp_tids]
    plain_rows = [row for quarter, row in wavefronts_16byte(plain) if quarter == 0]
    more, y = bank_panel(
        y + 10, "the same LOAD without the swizzle: tile row r = 16 chunks, "
        "chunk c at c",
        "lanes 0-7 only: they read chunk 0 of tile rows 0, 4, 8, ..., 28, "
        "which all start in bank group 0",
        plain_rows, S09_VEC, lambda n: "lanes 0-7, wf %d" % (n + 1),
        "%d-way conflict: %d wavefronts for these 8 lanes, %d for the warp"
        % (len(plain_rows), len(plain_rows),
           len(wavefronts_16byte(plain))), False)
    items.extend(more)

    # Every layout of the write-up's table, and the 4-byte kernel.
    counts = []
    for name, slot in (("padded by a chunk per row", padded_row_chunk_slot),
                       ("padded by a chunk per 4 rows", padded_4rows_chunk_slot)):
        rows = wavefronts_16byte([step09_load_slot(tid, 0, slot)
                                  for tid in warp_tids])
        ways = conflict_ways_16byte(rows)
        counts.append("%s: %d wavefronts (%s)"
                      % (name, len(rows),
                         "%d-way" % ways if ways > 1 else "no conflict"))
    scalar = []
    for side in ("store", "load"):
        words = []
        for _, tx, ty in lanes_of_warp(0, 32):
            # common/tile64.cuh, transpose_tile_words(), i = h = 0:
            # tile[word_slot(r, c)] with r = ty + i * BLOCK_ROWS,
            # c = tx + h * BLOCK_COLS (store into the tile), and with
            # c = ty + i * BLOCK_ROWS, r = tx + h * BLOCK_COLS (load from it)
            r, c = (ty, tx) if side == "store" else (tx, ty)
            words.append(step09_word_slot(r, c))
        scalar.append(len(wavefronts_4byte(words)))
    notes = ["Other layouts for this LDS.128, counted the same way:",
             "  " + "; ".join(counts) + ".",
             "The 4-byte kernel (word_slot(), c ^ (r %% 32)): store %d, load %d "
             "wavefront per warp access." % tuple(scalar)]
    for n, note in enumerate(notes):
        items.append(text(MARGIN, y + 10 + 18 * n, note, size=SMALL_SIZE,
                          fill=MUTED))
    return svg_document(
        y + 18 * len(notes) + 12 + LEGEND_HEIGHT,
        "Step 09: 16-byte shared accesses, chunk c of row r at c ^ ((r / 4) % 8)",
        [(lane_colour(0), "lane 0"),
         (lane_colour(31), "lane 31, its chunk in the 4-bank group it hits"),
         (EMPTY, "idle bank"), (None, "bank group = chunk slot % 8")],
        items)


# ============================================================== fig-10-tile-order

TILES = 8                  # the small matrix: 8 x 8 tiles (512 x 512 floats)
RESIDENT_BLOCKS = 16       # the first wave of a toy GPU that holds 16 blocks
TILE_CELL = 32


def tile_grid(x, y, numbers, first_wave, caption):
    """An 8 x 8 grid of tiles with its top left corner at (x, y), each tile
    labelled with the block index that handles it, the first wave
    highlighted.  Returns the items."""
    cells = []
    for row in range(TILES):
        for col in range(TILES):
            t = numbers[row][col]
            first = t in first_wave
            cx, cy = col * TILE_CELL, row * TILE_CELL
            cells.append(rect(cx, cy, TILE_CELL, TILE_CELL,
                              fill=HIGHLIGHT if first else FADED, stroke=GRID))
            cells.append(text(cx + TILE_CELL / 2, cy + 21, str(t),
                              size=SMALL_SIZE, anchor="middle",
                              fill=INK if first else MUTED,
                              weight="bold" if first else None))
    cells.append(rect(0, 0, TILES * TILE_CELL, TILES * TILE_CELL,
                      stroke=INK, stroke_width=1.5))
    return [text(x, y - 8, caption, size=SMALL_SIZE, weight="bold"),
            group(cells, x, y)]


def runs(flags):
    """Lengths of the runs of True in a row of booleans."""
    lengths, current = [], 0
    for flag in list(flags) + [False]:
        if flag:
            current += 1
        elif current:
            lengths.append(current)
            current = 0
    return lengths


def tile_order_panel(y, order, name, walk):
    """The in and out grids of one tile order; returns (items, new y)."""
    in_numbers = [[0] * TILES for _ in range(TILES)]
    for t in range(TILES * TILES):
        tile_y, tile_x = raster_tile(t, TILES, TILES, order)
        in_numbers[tile_y][tile_x] = t
    # Tile (tile_y, tile_x) of in is tile (tile_x, tile_y) of out.
    out_numbers = [[in_numbers[c][r] for c in range(TILES)] for r in range(TILES)]
    first_wave = set(range(RESIDENT_BLOCKS))
    items = [text(MARGIN, y + 14, name, weight="bold"),
             text(MARGIN, y + 32, walk, size=SMALL_SIZE, fill=MUTED)]
    grid_top = y + 62
    in_x, out_x = MARGIN + 40, MARGIN + 40 + TILES * TILE_CELL + 110
    items += tile_grid(in_x, grid_top, in_numbers, first_wave,
                       "in: block t takes tile (tile_y, tile_x)")
    items += tile_grid(out_x, grid_top, out_numbers, first_wave,
                       "out: where that block writes")
    middle_y = grid_top + TILES * TILE_CELL / 2
    items.append(line(in_x + TILES * TILE_CELL + 14, middle_y,
                      out_x - 14, middle_y, arrow=True))
    items.append(text((in_x + TILES * TILE_CELL + out_x) / 2, middle_y - 8,
                      "transpose", size=SMALL_SIZE, anchor="middle", fill=MUTED))
    # Brackets beside the tile rows of out that the first wave writes into.
    bracket_x = out_x + TILES * TILE_CELL + 8
    written = [[t in first_wave for t in row] for row in out_numbers]
    for row in range(TILES):
        if any(written[row]):
            top = grid_top + row * TILE_CELL + 3
            items.append(rect(bracket_x, top, 6, TILE_CELL - 6,
                              fill=HIGHLIGHT_TEXT))
    # What the first wave does, in rows of the real 64 x 64-float tiles.
    out_rows = sum(S10_TILE for row in written if any(row))
    out_run = max(length for row in written for length in runs(row))
    read = [[t in first_wave for t in row] for row in in_numbers]
    in_rows = sum(S10_TILE for row in read if any(row))
    in_run = max(length for row in read for length in runs(row))
    piece = S10_TILE * FLOAT_BYTES
    summary = [
        "first wave (blocks 0-%d) writes into %d of the %d rows of out, "
        "in runs of %d bytes (%s);"
        % (RESIDENT_BLOCKS - 1, out_rows, TILES * S10_TILE, out_run * piece,
           plural(out_run, "tile")),
        "it reads %d rows of in, in runs of %d bytes (%s)."
        % (in_rows, in_run * piece, plural(in_run, "tile")),
    ]
    y = grid_top + TILES * TILE_CELL + 22
    for n, string in enumerate(summary):
        items.append(text(MARGIN + 40, y + 18 * n, string, size=SMALL_SIZE + 1,
                          fill=HIGHLIGHT_TEXT))
    return items, y + 18 * len(summary) + 14


def fig_10_tile_order():
    """Step 10: which tiles the first resident wave of blocks handles, in
    row-major and in column-major tile order (raster_tile())."""
    items, y = [], TITLE_HEIGHT
    items.append(text(MARGIN, y + 8, "%d x %d tiles of 64 x 64 floats; a toy GPU "
                      "that holds %d blocks at once (an H200 holds 8 x %d = %s)"
                      % (TILES, TILES, RESIDENT_BLOCKS, H200_SMS,
                         thousands(8 * H200_SMS)),
                      size=SMALL_SIZE + 1, fill=MUTED))
    y += 20
    for order, name, walk in (
            (S10_ROW_MAJOR, "row_async: row-major tile order (GROUP = 1)",
             "raster_tile(t, 8, 8, 1): consecutive blocks walk along a row "
             "of tiles of in"),
            (S10_COLUMN_MAJOR, "col_async (default): column-major tile order "
             "(COLUMN_MAJOR)",
             "raster_tile(t, 8, 8, COLUMN_MAJOR): consecutive blocks walk down "
             "a column of tiles of in = along a row of tiles of out")):
        more, y = tile_order_panel(y, order, name, walk)
        items.extend(more)
    return svg_document(
        y + LEGEND_HEIGHT,
        "Step 10: the order in which blocks take tiles, and what the first "
        "wave writes",
        [(HIGHLIGHT, "tile of the first wave of blocks"),
         (FADED, "later blocks"), (HIGHLIGHT_TEXT, "tile rows of out written"),
         (None, "number: block index t")],
        items)


# ============================================================== fig-03-readonly

# What nvcc 13 emits for the strided read of each kernel for sm_90: PTX
# checked with nvcc -ptx, SASS as in the table of docs/steps/03_ldg.md
# (cuobjdump --dump-sass build/step03 | grep -E 'Function|LDG').
S03_LOADS = [
    ("step 02 coalesced_write", "in[i]", "ld.global.f32", "LDG.E", "l1"),
    ("03 ldg (default)", "__ldg(&in[i])", "ld.global.nc.f32", "LDG.E.CONSTANT",
     "l1"),
    ("03 restrict", "in[i], const __restrict__", "ld.global.nc.f32",
     "LDG.E.CONSTANT", "l1"),
    ("03 l2_only", "__ldcg(&in[i])", "ld.global.cg.f32", "LDG.E.STRONG.GPU",
     "l2"),
]


def fig_03_readonly():
    """Step 03: what each load compiles to, which way it goes, and how much
    L1 reuse the block's index arithmetic allows."""
    items, y = [], TITLE_HEIGHT + 6
    columns = [MARGIN, MARGIN + 190, MARGIN + 390, MARGIN + 540, MARGIN + 690]
    for x, head in zip(columns, ("kernel", "the read", "PTX", "SASS",
                                 "cached in"), strict=True):
        items.append(text(x, y + 12, head, size=SMALL_SIZE, weight="bold"))
    y += 20
    for kernel, source, ptx, sass, path in S03_LOADS:
        items.append(line(MARGIN, y, WIDTH - MARGIN, y, stroke=GRID, width=1))
        cells = (kernel, source, ptx, sass, "L1 and L2" if path == "l1"
                 else "L2 only")
        for n, (x, cell) in enumerate(zip(columns, cells, strict=True)):
            items.append(text(x, y + 16, cell, size=SMALL_SIZE,
                              mono=n in (1, 2, 3),
                              fill=BAD if path == "l2" and n == 4 else None))
        y += 22
    items.append(line(MARGIN, y, WIDTH - MARGIN, y, stroke=GRID, width=1))
    items.append(text(MARGIN, y + 18, "const __restrict__ alone already gives "
                      "the non-coherent load (.nc): __ldg only forces it.",
                      size=SMALL_SIZE + 1, fill=MUTED))
    y += 34

    # The path diagram on the left.
    top = y
    sm_y, l1_y, l2_y, dram_y = top, top + 90, top + 190, top + 270
    box_x, box_w, box_h = MARGIN, 200, 50
    for y0, name, note in (
            (sm_y, "SM: the warp's LDG", "32 lanes, 32 sectors"),
            (l1_y, "L1TEX (per SM)", "L1 = texture cache since Volta"),
            (l2_y, "L2 (all SMs)", "sees what L1 misses"),
            (dram_y, "DRAM", "")):
        items.append(rect(box_x, y0, box_w, box_h, fill=UNIT_FILL, stroke=INK,
                          rx=6))
        items.append(text(box_x + 10, y0 + 21, name, weight="bold"))
        if note:
            items.append(text(box_x + 10, y0 + 39, note, size=SMALL_SIZE,
                              fill=MUTED))
    middle = box_x + 40
    items.append(line(middle, sm_y + box_h, middle, l1_y - 2, arrow=True))
    items.append(text(middle + 8, sm_y + box_h + 18, "LDG.E,", size=SMALL_SIZE,
                      mono=True))
    items.append(text(middle + 8, sm_y + box_h + 33, "LDG.E.CONSTANT",
                      size=SMALL_SIZE, mono=True))
    items.append(line(middle, l1_y + box_h, middle, l2_y - 2, arrow=True))
    items.append(text(middle + 8, l1_y + box_h + 24, "misses", size=SMALL_SIZE,
                      fill=MUTED))
    items.append(line(middle, l2_y + box_h, middle, dram_y - 2, arrow=True))
    bypass_x = box_x + box_w + 16
    items.append(polyline([(box_x + box_w, sm_y + 25), (bypass_x, sm_y + 25),
                           (bypass_x, l2_y + 25), (box_x + box_w + 2, l2_y + 25)],
                          stroke=BAD, dash="6,4", arrow=True))
    items.append(text(bypass_x + 6, l1_y + 20, "LDG.E.STRONG.GPU", size=SMALL_SIZE,
                      mono=True, fill=BAD))
    items.append(text(bypass_x + 6, l1_y + 36, "(.cg: skips L1)", size=SMALL_SIZE,
                      fill=BAD))

    # The reuse that the block's index arithmetic allows, on the right.
    right = MARGIN + 365
    cell_w, cell_h = 20, 7
    warps = S02_BLOCK_ROWS
    requested, asked_by = 0, {}
    for warp in range(warps):
        for _lane, tx, ty in lanes_of_warp(warp, S02_BLOCK_COLS):
            i, _ = step02_coalesced_write(4096, 4096, 0, 0, tx, ty)
            sector = i * FLOAT_BYTES // SECTOR_BYTES
            requested += 1   # one sector per lane: the read is strided
            asked_by.setdefault(sector, set()).add(warp)
    warp0 = [step02_coalesced_write(4096, 4096, 0, 0, tx, ty)
             for _, tx, ty in lanes_of_warp(0, S02_BLOCK_COLS)]
    load_sectors = len(sectors_of([(lane, i * FLOAT_BYTES, FLOAT_BYTES)
                                   for lane, (i, _) in enumerate(warp0)]))
    store_sectors = len(sectors_of([(lane, o * FLOAT_BYTES, FLOAT_BYTES)
                                    for lane, (_, o) in enumerate(warp0)]))
    hits = requested - len(asked_by)
    rate = hits / requested * load_sectors / (load_sectors + store_sectors)
    items.append(text(right, top + 12, "one block (32 x 8 threads) reads 32 rows "
                      "x 8 columns of in", size=SMALL_SIZE + 1, weight="bold"))
    grid_top = top + 44
    items.append(text(right - 6, grid_top - 6, "warp", size=SMALL_SIZE,
                      anchor="end", fill=MUTED))
    for warp in range(warps):
        items.append(text(right + (warp + 0.5) * cell_w, grid_top - 6,
                          str(warp), size=SMALL_SIZE, anchor="middle",
                          fill=MUTED))
    for row in range(S02_BLOCK_COLS):
        for warp in range(warps):
            items.append(rect(right + warp * cell_w, grid_top + row * cell_h,
                              cell_w, cell_h, fill=lane_colour(4 * warp),
                              stroke=GRID, stroke_width=0.5))
    items.append(rect(right, grid_top, warps * cell_w, S02_BLOCK_COLS * cell_h,
                      stroke=INK, stroke_width=1.5))
    sharing = {len(warps_) for warps_ in asked_by.values()}
    assert len(sharing) == 1
    sharing = sharing.pop()
    notes = [
        "column = warp (threadIdx.y),",
        "row = one 32-byte sector of in",
        "",
        "%d sector requests, %d distinct" % (requested, len(asked_by)),
        "sectors, each asked for by %d warps:" % sharing,
        "at most %d of %d hit in L1 (%d/%d)" % (hits, requested, sharing - 1,
                                                sharing),
        "",
        "a warp also stores %d sectors, which" % store_sectors,
        "if L1 counts them all as misses:",
        "%d/%d x %d / (%d + %d) =" % (sharing - 1, sharing, load_sectors,
                                      load_sectors, store_sectors),
        "at most %.1f %% L1 hit rate" % (100 * rate),
    ]
    text_x = right + warps * cell_w + 16
    for n, string in enumerate(notes):
        items.append(text(text_x, grid_top + 10 + 17 * n, string,
                          size=SMALL_SIZE + (1 if n == len(notes) - 1 else 0),
                          weight="bold" if n == len(notes) - 1 else None))
    y = max(dram_y + box_h, grid_top + S02_BLOCK_COLS * cell_h) + 16
    return svg_document(
        y + LEGEND_HEIGHT,
        "Step 03: the strided read through L1 or around it",
        [(UNIT_FILL, "hardware unit"),
         (None, "solid: cached in L1, the same for all three"),
         (None, "dashed: __ldcg, L2 only")],
        items)


# ============================================================== fig-04-unroll

S04_KERNELS = [
    # (label, profile (step, kernel), loads per thread, bytes per load)
    ("03 ldg: 1 element", ("03", "ldg"), 1, FLOAT_BYTES),
    ("04 unroll4", ("04", "unroll4"), 4, FLOAT_BYTES),
    ("04 unroll8", ("04", "unroll8"), 8, FLOAT_BYTES),
    ("05 float4 (next step)", ("05", "float4"), S05_QUAD, FLOAT4_BYTES),
]


def profile_at_4096(metric):
    """{(step, kernel): value of metric} at 4096 x 4096 from the committed
    profile, or {} when it is not there."""
    found = {}
    if not os.path.exists(PROFILE_CSV):
        return found
    with open(PROFILE_CSV, newline="") as handle:
        for row in csv.DictReader(handle):
            if row["metric"] == metric and row["rows"] == "4096" and row["cols"] == "4096" \
                    and row["offset"] == "0":
                found[(row["step"], row["kernel"])] = float(row["value"])
    return found


def achieved_occupancy():
    """{(step, kernel): achieved occupancy %} at 4096 x 4096 from the committed profile."""
    return profile_at_4096("sm__warps_active.avg.pct_of_peak_sustained_active")


def loads_per_thread(unroll):
    """The loads one thread of transpose_unrolled<unroll> issues before its
    first store, from the index arithmetic (distinct elements of thread (0, 0))."""
    return len({step04_unrolled(4096, 4096, unroll, S04_BLOCK_ROWS, 0, 0, 0, 0, k)
                for k in range(unroll)})


def fig_04_unroll():
    """Step 04: loads per thread before the first store, and the bytes in
    flight that gives per thread and per SM."""
    items, y = [], TITLE_HEIGHT + 4
    # The check that the table below is what the kernels do.
    assert loads_per_thread(4) == 4 and loads_per_thread(8) == 8
    rows_of_thread = []
    for k in range(4):
        _, out_index = step04_unrolled(4096, 4096, 4, S04_BLOCK_ROWS, 0, 0, 0, 3, k)
        rows_of_thread.append(out_index // 4096)   # out is cols x rows
    items.append(text(MARGIN, y + 12, "unroll4: thread (x, y) moves output rows "
                      "y, y + 8, y + 16, y + 24 of its tile (thread (0, 3): "
                      "rows %s)" % ", ".join(map(str, rows_of_thread)),
                      size=SMALL_SIZE + 1, fill=MUTED))
    y += 30
    # Timelines: what one thread issues.
    label_w = 170
    gap, wait_w = 3, 96
    items.append(text(MARGIN, y + 12, "what one thread issues: all its loads, "
                      "one wait for DRAM (dashed), then its stores",
                      weight="bold"))
    y += 26
    for label, _, loads, size in S04_KERNELS:
        box = 24 if size == FLOAT_BYTES else 52
        name = "" if size == FLOAT_BYTES else ".128"
        x = MARGIN + label_w
        items.append(text(MARGIN, y + 16, label, size=SMALL_SIZE + 1))
        for _ in range(loads):
            items.append(rect(x, y, box, 22, fill=PALETTE[0], stroke=INK))
            items.append(text(x + box / 2, y + 15, "LD" + name, size=SMALL_SIZE,
                              anchor="middle"))
            x += box + gap
        items.append(line(x + 4, y + 11, x + wait_w - 8, y + 11, stroke=MUTED,
                          dash="4,3", arrow=True))
        x += wait_w
        for _ in range(loads):
            items.append(rect(x, y, box, 22, fill=PALETTE[1], stroke=INK))
            items.append(text(x + box / 2, y + 15, "ST" + name, size=SMALL_SIZE,
                              anchor="middle"))
            x += box + gap
        items.append(text(x + 10, y + 16, "%d x %d B" % (loads, size),
                          size=SMALL_SIZE, fill=MUTED))
        y += 32
    y += 12

    # Bars: bytes in flight per thread and per SM.
    occupancy = achieved_occupancy()
    bar_x, bar_max = MARGIN + label_w, 430

    def bars(y, heading, values, unit, scale):
        items.append(text(MARGIN, y + 12, heading, weight="bold"))
        y += 22
        for label, full, achieved in values:
            items.append(text(MARGIN, y + 14, label, size=SMALL_SIZE + 1))
            items.append(rect(bar_x, y, bar_max * full / scale, 18,
                              fill=PALETTE[0] if achieved is None else FADED,
                              stroke=INK))
            note = "%g %s" % (full, unit)
            if achieved is not None:
                items.append(rect(bar_x, y, bar_max * achieved / scale, 18,
                                  fill=PALETTE[0], stroke=INK))
                note = "%.1f of %g %s" % (achieved, full, unit)
            items.append(text(bar_x + bar_max * full / scale + 8, y + 14, note,
                              size=SMALL_SIZE))
            y += 26
        return y + 8

    per_thread = [(label, loads * size, None)
                  for label, _, loads, size in S04_KERNELS]
    y = bars(y, "bytes in flight per thread (loads issued before the first "
             "store)", per_thread, "B", max(v for _, v, _ in per_thread))
    per_sm = []
    for label, key, loads, size in S04_KERNELS:
        full = H200_MAX_THREADS_PER_SM * loads * size / 1024
        achieved = (full * occupancy[key] / 100) if key in occupancy else None
        per_sm.append((label, full, achieved))
    heading = ("per SM, at most: full occupancy of %d threads (light), "
               "measured occupancy (dark)" % H200_MAX_THREADS_PER_SM
               if occupancy else
               "at most, per SM, at full occupancy (%d threads)"
               % H200_MAX_THREADS_PER_SM)
    y = bars(y, heading, per_sm, "KiB", max(v for _, v, _ in per_sm))
    if occupancy:
        items.append(text(MARGIN, y + 6, "achieved occupancy: "
                          + ", ".join("%s %.1f %%" % (key[1], occupancy[key])
                                      for _, key, _, _ in S04_KERNELS
                                      if key in occupancy)
                          + " (docs/results/h200-profile.csv, 4096 x 4096)",
                          size=SMALL_SIZE, fill=MUTED))
        y += 18
    return svg_document(
        y + LEGEND_HEIGHT,
        "Step 04: several elements per thread, more bytes in flight",
        [(PALETTE[0], "load (LDG)"), (PALETTE[1], "store (STG)"),
         (FADED, "the rest of full occupancy"),
         (None, "bytes in flight = loads x bytes x resident threads")],
        items)


# ============================================================== main


# ============================================================== fig-11-runs

S11_VEC = 4             # floats per 16-byte chunk (AS_VEC in steps/11_any_shape/any_shape.cuh)
S11_TILE = 64           # AS_TILE
S11_ROWS, S11_COLS = 10007, 7919   # the misaligned shape the write-up measures


def step11_load_row(first, lead, width):
    """load_row_chunk(): for the tile row whose first element is `first`
    of `in` (counted from element 0, `in` starting `lead` floats into a
    chunk), the shift and, per chunk k, the tile column of its first float."""
    flat = first + lead
    shift = flat % S11_VEC
    chunks = []
    for k in range(S11_TILE // S11_VEC + 1):
        column = k * S11_VEC - shift
        if column >= width:
            break
        chunks.append(column)
    return shift, chunks


def step11_store_run(first, lead, height):
    """store_tile_any_shape(): the run of `height` floats of `out` that
    starts at element `first`: floats before the first whole chunk, whole
    chunks, floats after the last."""
    flat = first + lead
    head = min((S11_VEC - flat % S11_VEC) % S11_VEC, height)
    whole = (height - head) // S11_VEC
    tail = height - head - whole * S11_VEC
    return head, whole, tail


def chunk_strip(x, y, cell, kinds, label):
    """One run of floats, 4 to a chunk: kinds[i] is 'vec', 'scalar',
    'drop' or None (not part of the run) for float i."""
    items = [text(x, y - 6, label, size=SMALL_SIZE, mono=True)]
    fills = {"vec": GOOD, "scalar": BAD, "drop": FADED, None: EMPTY}
    for i, kind in enumerate(kinds):
        items.append(rect(x + i * cell, y, cell, cell, fill=fills[kind], stroke=GRID))
    for c in range(0, len(kinds) + 1, S11_VEC):   # chunk boundaries
        items.append(line(x + c * cell, y - 3, x + c * cell, y + cell + 3, stroke=INK, width=1.5))
    return items


def fig_11_runs():
    """Step 11: how a misaligned row is loaded as aligned chunks, and how a
    run of out is written as whole chunks plus single floats."""
    items, y = [], TITLE_HEIGHT + 4
    cell = 7
    items.append(text(MARGIN, y + 8, "%d x %d, aligned pointers; the tile at rows 0-63, columns 64-127."
                      % (S11_ROWS, S11_COLS), size=SMALL_SIZE, fill=MUTED))
    items.append(text(MARGIN, y + 24, "One cell = one float; thick lines = 16-byte chunk boundaries.",
                      size=SMALL_SIZE, fill=MUTED))
    y += 44
    items.append(text(MARGIN, y, "Load: tile rows 0-3 of in, each read as the aligned chunks that cover it",
                      weight="bold"))
    y += 22
    for r in range(4):
        shift, chunks = step11_load_row(r * S11_COLS + S11_TILE, 0, S11_TILE)
        kinds = []
        for column in chunks:
            for e in range(S11_VEC):
                kinds.append("vec" if 0 <= column + e < S11_TILE else "drop")
        items.extend(chunk_strip(MARGIN + 150, y + 8, cell, kinds,
                                 "row %d: shift %d" % (r, shift)))
        items.append(text(MARGIN + 150 + len(kinds) * cell + 8, y + 16,
                          "%d chunks" % len(chunks), size=SMALL_SIZE, fill=MUTED))
        y += 30
    y += 10
    items.append(text(MARGIN, y, "Store: rows 64-67 of out, the run of 64 floats this tile writes in each",
                      weight="bold"))
    y += 22
    for c in range(4):
        first = (S11_TILE + c) * S11_ROWS
        head, whole, tail = step11_store_run(first, 0, S11_TILE)
        offset = (first % S11_VEC)   # floats of the first chunk before the run
        kinds = [None] * offset + ["scalar"] * head + ["vec"] * (whole * S11_VEC) + ["scalar"] * tail
        kinds += [None] * ((-len(kinds)) % S11_VEC)
        items.extend(chunk_strip(MARGIN + 150, y + 8, cell, kinds,
                                 "out row %d" % (S11_TILE + c)))
        items.append(text(MARGIN + 150 + len(kinds) * cell + 8, y + 16,
                          "%d + %d chunks + %d" % (head, whole, tail), size=SMALL_SIZE, fill=MUTED))
        y += 30
    return svg_document(
        y + LEGEND_HEIGHT,
        "Step 11: aligned 16-byte chunks on a misaligned shape",
        [(GOOD, "moved by a 16-byte access"), (BAD, "single 4-byte store"),
         (FADED, "loaded, belongs to a neighbour: dropped"), (EMPTY, "another tile's")],
        items)


# ============================================================== fig-11-sectors

S11_SECTOR = 8          # floats per 32-byte sector (SR_SECTOR in steps/11_any_shape/sector_runs.cuh)


def step11_sector_run(rows, lead, row0, j):
    """sr_run(): the run [first, last) of out row j that the tiles at
    row0 = 64 k own, when runs start on sector boundaries."""
    shift = (S11_SECTOR - (j * rows + lead) % S11_SECTOR) % S11_SECTOR
    start = 0 if row0 == 0 else row0 + shift
    return min(start, rows), min(row0 + S11_TILE + shift, rows)


def owners_of_row(rows, j, first, count, sector_runs):
    """For floats first .. first + count - 1 of out row j: the row of tiles
    (k) that writes each, with 64-row runs or with sector runs."""
    owners = []
    for i in range(first, first + count):
        if sector_runs:
            k = i // S11_TILE
            for cand in (k - 1, k, k + 1):
                lo, hi = step11_sector_run(rows, 0, cand * S11_TILE, j) if cand >= 0 else (0, 0)
                if lo <= i < hi:
                    k = cand
                    break
        else:
            k = i // S11_TILE
        owners.append(k)
    return owners


def sector_strip(x, y, cell, j, first, owners, rows):
    """One stretch of an out row: floats coloured by the tile that writes
    them, thick lines at sector boundaries, sectors with two writers marked."""
    items = [text(MARGIN, y + cell - 1, "out row %d" % j, size=SMALL_SIZE, mono=True)]
    base = j * rows + first          # flat index of the first float drawn
    split = 0
    for i, k in enumerate(owners):
        items.append(rect(x + i * cell, y, cell, cell, fill=PALETTE[k % len(PALETTE)], stroke=GRID))
    edge = (-base) % S11_SECTOR      # first sector boundary inside the stretch
    sector_starts = list(range(edge, len(owners), S11_SECTOR))
    for s0 in sector_starts:
        items.append(line(x + s0 * cell, y - 3, x + s0 * cell, y + cell + 3, stroke=INK, width=1.5))
    for s0 in sector_starts:
        writers = set(owners[s0:s0 + S11_SECTOR])
        if s0 + S11_SECTOR <= len(owners) and len(writers) > 1:
            split += 1
            items.append(rect(x + s0 * cell, y + cell + 4, S11_SECTOR * cell, 4, fill=BAD))
    return items, split


def fig_11_sectors():
    """Step 11: which tile writes each float of a few rows of out, with runs
    of 64 floats (words, chunks) and with sector runs (the default on odd rows)."""
    items, y = [], TITLE_HEIGHT + 4
    cell, first, count = 8, 32, 88
    x0 = MARGIN + 90
    caption = "%d x %d: floats %d-%d of out rows 64-67, coloured by the tile row that writes them."
    items.append(text(MARGIN, y + 8, caption % (S11_ROWS, S11_COLS, first, first + count - 1),
                      size=SMALL_SIZE, fill=MUTED))
    items.append(text(MARGIN, y + 24, "Thick lines: 32-byte sector boundaries. Red bar: a sector written by two tiles.",
                      size=SMALL_SIZE, fill=MUTED))
    y += 54
    for title, sector_runs in (("Runs of 64 floats from column 64 k (words, chunks)", False),
                               ("Sector runs: each run starts on a sector boundary (step 11 on odd rows)", True)):
        items.append(text(MARGIN, y, title, weight="bold"))
        y += 16
        total = 0
        for j in range(S11_TILE, S11_TILE + 4):
            strip, split = sector_strip(x0, y, cell, j, first, owners_of_row(S11_ROWS, j, first, count, sector_runs),
                                        S11_ROWS)
            items.extend(strip)
            total += split
            y += cell + 16
        items.append(text(MARGIN, y + 2, "%d sectors with two writers in these rows" % total, size=SMALL_SIZE,
                          fill=MUTED))
        y += 26
    return svg_document(
        y + LEGEND_HEIGHT,
        "Step 11: runs of out that start on sector boundaries",
        [(PALETTE[0], "written by tile row k = 0"), (PALETTE[1], "by tile row k = 1"),
         (BAD, "sector shared by two tiles")],
        items)


# ============================================================== fig-12-swizzle

S12_BOX_COLS = 32        # TMA_BOX_COLS in steps/12_tma/tma_tile.cuh
S12_VEC = 4


def step12_swizzled_chunk(row, chunk):
    """swizzled_chunk(): where chunk `chunk` of box row `row` lands, in chunks."""
    return chunk ^ (row % 8)


def step12_lane(lane, warp):
    """store_tile_tma(): the 4x4 block (g, b) a lane reads."""
    b = lane % 4 + 4 * (warp // 2)
    g = lane // 4 + 8 * (warp % 2)
    return g, b


def fig_12_swizzle():
    """Step 12: the TMA unit's 128-byte swizzle, and the bank groups that a
    quarter-warp's 16-byte reads hit."""
    items, y = [], TITLE_HEIGHT + 4
    cell = 22
    chunks = S12_BOX_COLS // S12_VEC
    items.append(text(MARGIN, y + 8, "One box row = 128 bytes = 8 chunks = the 32 banks once.",
                      size=SMALL_SIZE, fill=MUTED))
    items.append(text(MARGIN, y + 24, "Number in a cell: the chunk of in stored there (CU_TENSOR_MAP_SWIZZLE_128B).",
                      size=SMALL_SIZE, fill=MUTED))
    y += 46
    x0 = MARGIN + 90
    for c in range(chunks):
        items.append(text(x0 + c * cell + cell / 2, y + 10, "%d" % c, size=SMALL_SIZE, anchor="middle",
                          fill=MUTED))
    items.append(text(MARGIN, y + 10, "bank group", size=SMALL_SIZE, fill=MUTED))
    y += 16
    # Lanes 0-7 of warp 0 and the (row, chunk) each reads with k = 0.
    quarter = {}
    for lane in range(8):
        g, b = step12_lane(lane, 0)
        quarter[(g * S12_VEC, b)] = lane
    for row in range(8):
        items.append(text(MARGIN, y + 15, "row %d" % row, size=SMALL_SIZE, mono=True))
        for chunk in range(chunks):
            slot = step12_swizzled_chunk(row, chunk)
            lane = quarter.get((row, chunk))
            fill = PALETTE[lane % len(PALETTE)] if lane is not None else EMPTY
            items.append(rect(x0 + slot * cell, y, cell, cell, fill=fill, stroke=GRID))
            items.append(text(x0 + slot * cell + cell / 2, y + 15, "%d" % chunk, size=SMALL_SIZE,
                              anchor="middle"))
        y += cell
    groups = sorted(step12_swizzled_chunk(r, c) for (r, c) in quarter)
    y += 18
    items.append(text(MARGIN, y, "Lanes 0-7 read rows 0 and 4, chunks 0-3 (k = 0): bank groups %s, "
                      "all different, so one wavefront." % ", ".join(str(x) for x in groups),
                      size=SMALL_SIZE + 1, fill=GOOD if len(set(groups)) == 8 else BAD))
    y += 10
    return svg_document(
        y + LEGEND_HEIGHT,
        "Step 12: the 128-byte swizzle of a TMA box, and one quarter-warp's reads",
        [(PALETTE[0], "coloured: a chunk lanes 0-7 read"), (EMPTY, "other chunks")],
        items)

# ============================================================== fig-ladder-in-flight

# What one thread of each step's default kernel has asked DRAM for before it
# first waits: (label, profile (step, kernel), loads, bytes per load). Loads
# are counted from the kernels' tiles: a shared tile of TILE x TILE floats
# filled by 256 threads gives each TILE * TILE / 256 elements to load.
S06_TILE, S06_THREADS = 32, 32 * 8   # steps/06-08: 32 x 32 tile, 32 x 8 block
LADDER_IN_FLIGHT = [
    ("02 coalesced_write", ("02", "coalesced_write"), 1, FLOAT_BYTES),
    ("03 ldg", ("03", "ldg"), 1, FLOAT_BYTES),
    ("04 unroll4", ("04", "unroll4"), 4, FLOAT_BYTES),
    ("05 float4", ("05", "float4"), S05_QUAD, FLOAT4_BYTES),
    ("06 shared_32x8", ("06", "shared_32x8"), S06_TILE * S06_TILE // S06_THREADS, FLOAT_BYTES),
    ("07 shared_padded", ("07", "shared_padded"), S06_TILE * S06_TILE // S06_THREADS,
     FLOAT_BYTES),
    ("08 shared_swizzle", ("08", "shared_swizzle"), S06_TILE * S06_TILE // S06_THREADS,
     FLOAT_BYTES),
    ("09 vec4", ("09", "vec4"), S09_TILE * S09_TILE // S09_THREADS // S09_VEC, FLOAT4_BYTES),
    ("10 col_async", ("10", "col_async"), S10_TILE * S10_TILE // S09_THREADS // S09_VEC,
     FLOAT4_BYTES),
]
DRAM_METRIC = "dram__throughput.avg.pct_of_peak_sustained_elapsed"


def fig_ladder_in_flight():
    """Steps 02-10: bytes in flight per SM (loads a thread issues before its
    first wait x resident threads) beside the DRAM throughput they reach."""
    assert loads_per_thread(4) == 4
    occupancy = achieved_occupancy()
    dram = profile_at_4096(DRAM_METRIC)
    items, y = [], TITLE_HEIGHT + 4
    label_w, left_max, right_x, right_max = 150, 170, MARGIN + 150 + 370, 240
    in_flight = {key: H200_MAX_THREADS_PER_SM * occupancy[key] / 100 * loads * size / 1024
                 for _, key, loads, size in LADDER_IN_FLIGHT if key in occupancy}
    scale = max(in_flight.values(), default=1.0)
    items.append(text(MARGIN + label_w, y + 12, "KiB in flight per SM", weight="bold"))
    items.append(text(right_x, y + 12, "DRAM throughput, % of peak", weight="bold"))
    y += 24
    for label, key, loads, size in LADDER_IN_FLIGHT:
        items.append(text(MARGIN, y + 14, label, size=SMALL_SIZE + 1))
        if key in in_flight:
            width = left_max * in_flight[key] / scale
            items.append(rect(MARGIN + label_w, y, width, 18, fill=PALETTE[0], stroke=INK))
            items.append(text(MARGIN + label_w + width + 6, y + 14,
                              "%.0f  (%d x %d B, %.0f %% occ.)"
                              % (in_flight[key], loads, size, occupancy[key]),
                              size=SMALL_SIZE, fill=MUTED))
        if key in dram:
            width = right_max * dram[key] / 100
            items.append(rect(right_x, y, width, 18, fill=PALETTE[2], stroke=INK))
            items.append(text(right_x + width + 6, y + 14, "%.0f" % dram[key], size=SMALL_SIZE))
        y += 26
    y += 6
    items.append(text(MARGIN, y + 6, "KiB in flight = 2048 threads x achieved occupancy x "
                      "loads x bytes a thread issues before its first wait;",
                      size=SMALL_SIZE, fill=MUTED))
    items.append(text(MARGIN, y + 22, "both at 4096 x 4096, from docs/results/h200-profile.csv",
                      size=SMALL_SIZE, fill=MUTED))
    y += 34
    return svg_document(
        y + LEGEND_HEIGHT,
        "Steps 02-10: bytes in flight per SM, and the DRAM throughput they reach",
        [(PALETTE[0], "KiB in flight per SM (H200)"), (PALETTE[2], "DRAM % of peak")],
        items)


FIGURES = {
    "fig-01-memory-system.svg": fig_01_memory_system,
    "fig-01-sectors.svg": fig_01_sectors,
    "fig-02-sectors.svg": fig_02_sectors,
    "fig-03-readonly.svg": fig_03_readonly,
    "fig-04-unroll.svg": fig_04_unroll,
    "fig-05-sectors.svg": fig_05_sectors,
    "fig-06-banks.svg": fig_06_banks,
    "fig-07-banks.svg": fig_07_banks,
    "fig-08-banks.svg": fig_08_banks,
    "fig-09-banks.svg": fig_09_banks,
    "fig-10-tile-order.svg": fig_10_tile_order,
    "fig-11-runs.svg": fig_11_runs,
    "fig-11-sectors.svg": fig_11_sectors,
    "fig-12-swizzle.svg": fig_12_swizzle,
    "fig-ladder-in-flight.svg": fig_ladder_in_flight,
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 if a figure is out of date")
    args = parser.parse_args()
    stale = []
    for name, draw in FIGURES.items():
        path = os.path.join(IMG_DIR, name)
        svg = draw()
        if args.check:
            try:
                with open(path, encoding="utf-8", newline="") as handle:
                    current = handle.read()
            except FileNotFoundError:
                current = None
            if current != svg:
                stale.append("%s: %s" % (os.path.relpath(path, ROOT),
                                         "missing" if current is None
                                         else "out of date"))
        else:
            os.makedirs(IMG_DIR, exist_ok=True)
            with open(path, "w", encoding="utf-8", newline="\n") as handle:
                handle.write(svg)
            print("wrote", os.path.relpath(path, ROOT))
    for path in sorted(glob.glob(os.path.join(IMG_DIR, "fig-*.svg"))):
        made_elsewhere = os.path.exists(path[:-len(".svg")] + ".dot")  # make diagrams
        if os.path.basename(path) not in FIGURES and not made_elsewhere:
            stale.append("%s: no function in tools/figures.py draws it"
                         % os.path.relpath(path, ROOT))
    if stale:
        for problem in stale:
            print("figures: " + problem, file=sys.stderr)
        if args.check:
            print("figures: run 'python3 tools/figures.py' to redraw them",
                  file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
