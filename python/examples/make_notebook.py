"""Writes texture_gather.ipynb, executed, with its outputs (kept beside it so the notebook's
cells are reviewed as code); python/tests/test_notebook.py executes the committed notebook
headless and checks its stored outputs equal the fresh run's. Run it with the package
installed: python python/examples/make_notebook.py"""

from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

cells = [
    new_markdown_cell(
        "# Texture gather (TLD4), step by step\n\n"
        "`textureGather` in GLSL, `Gather` in HLSL, `tex2Dgather` in CUDA: each compiles to NVIDIA's "
        "`TLD4`, which returns **one component of the four texels** a bilinear filter would read, "
        "without filtering them. This notebook runs TLD4 on tld4's bit-accurate software texture unit."
    ),
    new_code_cell(
        "import numpy as np\n"
        "import tld4\n\n"
        "# A 4x4 RGBA8 texture whose red channel names its texel: red = 16 * x + y\n"
        "y, x = np.mgrid[0:4, 0:4]\n"
        "texels = np.zeros((4, 4, 4), np.uint8)\n"
        "texels[..., 0], texels[..., 1], texels[..., 3] = 16 * x + y, 255 - 16 * x, 255\n"
        "tex = tld4.Texture('2d', 'rgba8_unorm', texels)\n"
        "smp = tld4.Sampler(address_u='clamp_to_edge', address_v='clamp_to_edge')\n"
        "tex"
    ),
    new_markdown_cell(
        "## The footprint\n\n"
        "For (s, t), the texel coordinates are u = s * width - 0.5 and v = t * height - 0.5; "
        "i0 = floor(u), j0 = floor(v), and the footprint is the 2x2 block i0..i0+1, j0..j0+1. "
        "The four results come in the order **(i0, j1), (i1, j1), (i1, j0), (i0, j0)** "
        "(Vulkan's x, y, z, w)."
    ),
    new_code_cell(
        "r = tld4.gather(tex, smp, np.array([[0.5, 0.5]]))\n"
        "codes = np.rint(r * 255).astype(int)[0].tolist()  # (plain ints: they print as numbers)\n"
        "print(codes, '->', [(c // 16, c % 16) for c in codes])\n"
        "assert [(c // 16, c % 16) for c in codes] == [(1, 2), (2, 2), (2, 1), (1, 1)]"
    ),
    new_markdown_cell("## The component\n\n`component=1` gathers green instead of red (`TLD4.G`)."),
    new_code_cell(
        "g = tld4.gather(tex, smp, np.array([[0.5, 0.5]]), component=1)\n"
        "print(np.rint(g * 255).astype(int)[0].tolist())\n"
        "assert np.rint(g * 255).astype(int)[0].tolist() == [255 - 16, 255 - 32, 255 - 32, 255 - 16]"
    ),
    new_markdown_cell(
        "## Offsets\n\n"
        "AOFFI moves the whole footprint by (dx, dy) texels; PTP gives each of the four texels its "
        "own offset (`textureGatherOffsets`). Offsets are 6-bit signed: -32..31."
    ),
    new_code_cell(
        "a = tld4.gather(tex, smp, np.array([[0.5, 0.5]]), offset=(-1, 0))\n"
        "p = tld4.gather(tex, smp, np.array([[0.5, 0.5]]), offsets=[(0, 0), (0, 0), (0, 0), (-1, -1)])\n"
        "print(np.rint(a * 255).astype(int)[0].tolist(), np.rint(p * 255).astype(int)[0].tolist())\n"
        "assert np.rint(a * 255).astype(int)[0].tolist() == [2, 18, 17, 1]\n"
        "assert np.rint(p * 255).astype(int)[0][3] == 0  # (i0 - 1, j0 - 1) = (0, 0)"
    ),
    new_markdown_cell(
        "## Depth compare\n\n"
        "With a depth format and a sampler compare function, each texel becomes 1.0 where the "
        "comparison `dref OP depth` holds, else 0.0 (`textureGather` on a shadow sampler)."
    ),
    new_code_cell(
        "depth = np.array([[0.25, 0.75], [0.5, 1.0]], np.float32)\n"
        "shadow = tld4.Texture('2d', 'd32_float', depth)\n"
        "d = tld4.gather(shadow, tld4.Sampler(compare='less'), np.array([[0.5, 0.5]]), dref=0.6)\n"
        "print(d[0].tolist())\n"
        "assert d[0].tolist() == [0.0, 1.0, 1.0, 0.0]"
    ),
    new_markdown_cell(
        "## F16 halves, from a warp\n\n"
        "`TLD4.F16` packs the four results as binary16 halves into two registers. Here the "
        "instruction runs for a whole warp whose registers are a numpy array (no copy)."
    ),
    new_code_cell(
        "pool = tld4.Pool()\n"
        "pool.set_texture(0, tld4.Texture('2d', 'r32_float', depth))\n"
        "pool.set_sampler(0, tld4.Sampler())\n"
        "exec_ = tld4.Exec(tld4.decode(tld4.assemble('TLD4.R.F16.RN R10, R8, R20, UR4, 2D ;')))\n"
        "warp = tld4.Warp()\n"
        "warp.uregs[4] = tld4.Pool.handle(0, 0)\n"
        "warp.regs.view(np.float32)[20:22] = 0.5\n"
        "exec_.execute(warp, pool)\n"
        "halves = warp.regs[[8, 10], 0].copy().view(np.float16)  # Rd = R8 (x, y), Rd2 = R10 (z, w)\n"
        "print([hex(v) for v in warp.regs[[8, 10], 0].tolist()], halves.tolist())\n"
        "assert halves.tolist() == [0.5, 1.0, 0.75, 0.25]"
    ),
    new_markdown_cell(
        "## A cube edge\n\n"
        "A cube's footprint that crosses a face edge takes its texels from the neighbouring face "
        "(seamless cube filtering). Each face is filled with its own number so the result shows "
        "which faces were read."
    ),
    new_code_cell(
        "faces = np.repeat(np.arange(6, dtype=np.uint32), 16).reshape(6, 4, 4)\n"
        "cube = tld4.Texture('cube', 'r32_uint', faces)\n"
        "# +X face (0), at its right edge (toward -Z): the footprint crosses onto -Z (5)\n"
        "c = tld4.gather(cube, tld4.Sampler(), np.array([[1.0, 0.0, -0.99]], np.float32))\n"
        "print(c[0].tolist())\n"
        "assert set(c[0].tolist()) == {0, 5}"
    ),
    new_markdown_cell(
        "## Explain one lane, with its picture\n\n"
        "`tld4.explain` returns what `tld4 explain` prints: every field and operand of the "
        "instruction and one lane's whole path through the texture unit (the rounding that "
        "decides i0 and j0, what the address modes did, the values and the registers written). "
        "`.png()` is its picture: the texture, the sample point, the footprint x, y, z, w."
    ),
    new_code_cell(
        "from IPython.display import Image\n\n"
        "scenario = tld4.Scenario.from_json(\"\"\"{\n"
        "  \"textures\": [{\"dim\": \"2d\", \"format\": \"rgba8_unorm\", \"width\": 4, \"height\": 4,\n"
        "                \"generate\": {\"pattern\": \"gradient\"}}],\n"
        "  \"samplers\": [{\"address_u\": \"clamp_to_border\", \"address_v\": \"repeat\"}],\n"
        "  \"handles\": {\"t\": {\"texture\": 0, \"sampler\": 0}},\n"
        "  \"instruction\": \"TLD4.R.AOFFI R10, R8, R20, R24, UR4, 2D ;\",\n"
        "  \"uniform\": {\"UR4\": \"t\"},\n"
        "  \"lanes\": [{\"lanes\": \"all\", \"R20\": 0.8, \"R21\": 0.0625, \"R24\": \"0x00000001\"}]\n"
        "}\"\"\")\n"
        "e = tld4.explain(scenario.instruction, scenario, lane=0)\n"
        "# The four texels of the footprint, as the text names them\n"
        "print('\\n'.join(l for l in e.text.splitlines() if l.lstrip().startswith(('x (', 'y (', 'z (', 'w ('))))\n"
        "assert 'redirected by v repeat' in e.text and e.consistent\n"
        "Image(e.png())"
    ),
]

nb = new_notebook(cells=cells, metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}})
# Executed before it is written, so the committed notebook shows its outputs (GitHub and
# nbviewer render them); test_notebook.py checks they equal a fresh run's.
NotebookClient(nb, timeout=120, kernel_name="python3").execute()
for cell in nb.cells:
    cell.get("metadata", {}).pop("execution", None)  # (timestamps: not part of the outputs)
nbformat.write(nb, Path(__file__).with_name("texture_gather.ipynb"))
