"""The build's own words (notes under blocks, generated pages, the header) in each site language.

English text is the key, gettext's way: `words = Words(language)`, then
`words("ran in this build.")`, or with `str.format` placeholders for the values,
`words("Output changed in torch {version}", version="2.15")`. A language's catalog
maps the English text to its own (`ZH`); an entry it lacks is shown in English. A
text defined in one place and shown in another (a status's meaning) is marked where
it is written with `translatable`, and translated where it is shown.
tests/unit/test_messages.py checks that every text the build translates has an entry, that
every entry is used, and that each entry has its English text's placeholders.

Nothing from the handbook is imported here: every layer may use it.
"""

from __future__ import annotations

from dataclasses import dataclass

from handbook.languages import DEFAULT


def translatable(english: str) -> str:
    """`english` as it is: marks a literal as the build's words, to be translated where it is shown
    (gettext's `N_`), so that the catalog's test finds it as it finds `words(...)`."""
    return english


@dataclass(frozen=True)
class Words:
    """The build's words in one site language (`en`, `zh`): `words(english, **values)`."""

    language: str = DEFAULT

    def __call__(self, english: str, /, **values: object) -> str:
        """`english` in this language, its `{placeholders}` filled from `values`; English if the
        language's catalog has no entry for it."""
        return CATALOGS.get(self.language, {}).get(english, english).format(**values)


# fmt: off
ZH: dict[str, str] = {
    # Under each block (handbook.rendering): its output, how it got onto the page, and notes.
    "Output": "输出",
    "This block failed": "此代码块运行失败",
    "This block in the handbook's repository": "本手册仓库中的这个代码块",
    "{place}: {how}": "{place}：{how}",
    "ran in this build.": "在本次构建中运行。",
    "ran in an earlier build; its run was reused from the execution cache.":
        "在之前的构建中运行；本次构建复用了执行缓存中的结果。",
    "not run in this build; shown from its recording (a render-only preview).":
        "本次构建未运行；显示的是记录的输出（仅渲染的预览构建）。",
    "{meaning}.": "{meaning}。",
    "GPU-only block, not run in this build. Output recorded on {device} with torch {torch} on {date}.":
        "仅限 GPU 的代码块，本次构建未运行。输出于 {date} 在 {device} 上用 torch {torch} 记录。",
    "GPU-only block: it runs only where CUDA is available, and no output has been recorded on a GPU yet.":
        "仅限 GPU 的代码块：它只在有 CUDA 的环境中运行，目前还没有在 GPU 上记录的输出。",
    " To run it on a GPU yourself, {link} and choose a GPU runtime.":
        "如需自己在 GPU 上运行，请{link}，并选择 GPU 运行时。",
    "open this chapter in Colab": "在 Colab 中打开本章",
    "The value marked (measured; claim: …) was measured {when}{where}; the build checks it against its claim, "
    "not against the recorded value.":
        "标有 (measured; claim: …) 的值是{when}测得的{where}；构建会用它所附的论断检查它，而不是与记录的值比较。",
    "The {count} values marked (measured; claim: …) were measured {when}{where}; the build checks each against "
    "its claim, not against the recorded value.":
        "标有 (measured; claim: …) 的 {count} 个值是{when}测得的{where}；构建会用各自所附的论断检查每个值，"
        "而不是与记录的值比较。",
    "The value marked (measured; claim: …): shown as recorded, not measured in this build; the build checks it "
    "against its claim, not against the recorded value.":
        "标有 (measured; claim: …) 的值：显示的是记录的值，并非在本次构建中测得；构建会用它所附的论断检查它，"
        "而不是与记录的值比较。",
    "The {count} values marked (measured; claim: …): shown as recorded, not measured in this build; the build "
    "checks each against its claim, not against the recorded value.":
        "标有 (measured; claim: …) 的 {count} 个值：显示的是记录的值，并非在本次构建中测得；构建会用各自所附的"
        "论断检查每个值，而不是与记录的值比较。",
    "in this build": "在本次构建中",
    "in an earlier build (from the execution cache)": "在之前的构建中（取自执行缓存）",
    " on {machine}": "，测量机器为 {machine}",
    "{cpu} ({arch}, ATen CPU capability {capability}, {threads} intra-op thread(s))":
        "{cpu}（{arch}，ATen CPU 指令集 {capability}，{threads} 个算子内线程）",
    "A prediction, checked against the output recorded on {device} with torch {torch} on {date}: they agree.":
        "这是一个预测，已与 {date} 在 {device} 上用 torch {torch} 记录的输出核对：两者一致。",
    "A prediction, computed on the CPU; no output has been recorded on a GPU yet to check it against.":
        "这是在 CPU 上算出的预测；目前还没有在 GPU 上记录的输出可供核对。",
    "{count:,} more line(s) not shown": "另有 {count:,} 行未显示",
    "{count:,} more character(s) not shown": "另有 {count:,} 个字符未显示",
    "{left_out}; the whole output is in {recording}.": "{left_out}；完整输出见 {recording}。",
    "Not matching a recording ({status}); `make goldens` records it.":
        "与记录的输出不符（{status}）；运行 `make goldens` 会记录它。",
    "Python {names} prints this differently": "Python {names} 的输出与此不同",
    "Python {names} print this differently": "Python {names} 的输出与此不同",
    " and ": "、",
    "Output changed in torch {version}": "torch {version} 中输出有变化",

    # What a block's status means (handbook.execution.status): the notes, How this site is built.
    "executed in this build": "在本次构建中执行",
    "executed in an earlier build with identical code, includes and environment; its run was reused":
        "在之前一次代码、引入的文件和环境都相同的构建中执行，复用了那次的运行结果",
    "not executed (render-only preview build)": "未执行（仅渲染的预览构建）",
    "not run here by design": "按设计不在此运行",
    "GPU-only; shows the output recorded on a GPU (device and date below)":
        "仅限 GPU；显示在 GPU 上记录的输出（设备和日期见下方）",
    "GPU-only; no output has been recorded on a GPU yet": "仅限 GPU；还没有在 GPU 上记录过输出",
    "the block raised an exception": "代码块抛出了异常",
    "the block called sys.exit": "代码块调用了 sys.exit",
    "the page process exited during the block": "页面进程在代码块运行期间退出",
    "the page process crashed during the block": "页面进程在代码块运行期间崩溃",
    "the page process sent the build a message it does not send (a block wrote to its socket)":
        "页面进程向构建发送了它不会发送的消息（代码块写入了它与构建之间的套接字）",
    "the block ran past its timeout": "代码块运行超时",
    "the block printed too much": "代码块打印的内容过多",
    "the page ran past its memory limit": "页面超出了内存上限",
    "a thread the block started printed after the block ended": "代码块启动的线程在代码块结束后仍有打印",
    "the block's figure is missing, too large or not an SVG the site may show":
        "代码块的图缺失、过大，或不是本站可以显示的 SVG",
    "the block did not run because an earlier block of its page failed":
        "同一页面中较早的代码块失败，这个代码块因此没有运行",
    "the output differs from its recording": "输出与记录的输出不同",
    "a measured value does not hold the claim printed beside it": "某个测量值不符合打印在它旁边的论断",
    "the block has no recording": "代码块没有记录的输出",
    "the prediction disagrees with what was recorded on a GPU": "预测与在 GPU 上记录的输出不一致",
    "the lab's check does not print `correct` for its solution": "练习的检查代码对参考答案没有输出 `correct`",
    "the lab's check does not reject a deliberately wrong answer": "练习的检查代码没有拒绝故意写错的答案",

    # Every page's header and footer (overrides/main.html, through handbook.plugin).
    "Every example on this site was executed with": "本站的每个示例都在以下环境中执行：",
    "Every example on this site but the {gpu} GPU-only one was executed with":
        "除 {gpu} 个仅限 GPU 的示例外，本站的每个示例都在以下环境中执行：",
    "Every example on this site but the {gpu} GPU-only ones was executed with":
        "除 {gpu} 个仅限 GPU 的示例外，本站的每个示例都在以下环境中执行：",
    "Preview build: {recorded} of {blocks} examples were not executed here; they show the output recorded with":
        "预览构建：{blocks} 个示例中有 {recorded} 个未在此执行，显示的是在以下环境中记录的输出：",
    ", Python {python}, on {device}, on {date}.": "，Python {python}，设备 {device}，日期 {date}。",
    "How this site is built": "本站如何构建",
    "Page last changed on {date}.": "本页最后修改于 {date}。",
    "This version of the handbook was executed against an older torch.":
        "本手册的这个网站版本是用较旧的 torch 执行的。",
    "Read the latest version.": "阅读最新的网站版本。",
    "Annotation": "注释",

    # How this site is built (handbook.reports.site_report).
    "This is a render-only preview (`{execute}=0`): {recorded} of {blocks} blocks were not executed, and "
    "each shows the output recorded for this torch release under `recordings/`. A full build runs each page as "
    "follows.":
        "这是一次仅渲染的预览构建（`{execute}=0`）：{blocks} 个代码块中有 {recorded} 个未执行，"
        "它们各自显示 `recordings/` 下为这个 torch 版本记录的输出。完整构建按下述方式运行每个页面。",
    "Every CPU block on this site was executed: {ok} in this build, {cached} in an earlier build with identical "
    "code, includes and environment, whose runs were reused.":
        "本站的每个 CPU 代码块都已执行：{ok} 个在本次构建中执行，{cached} 个在之前一次代码、引入的文件和环境都"
        "相同的构建中执行，复用了那次的运行结果。",
    "{how}\nEach page ran in a fresh\n"
    "process, forked from a server that had already imported torch, with one intra-op thread and\n"
    "`torch.manual_seed(0)`; its output was captured at the file-descriptor level, normalised\n"
    "(object addresses, installation paths, log timestamps) and compared with the output recorded\n"
    "for this torch release under `recordings/`. A block whose output differs fails the build.\n"
    "Outputs are recorded with Python {python}; where another supported Python prints\n"
    "differently, its output is recorded beside, and shown folded under the block.":
        "{how}每个页面都在一个全新的进程中运行：这个进程从一个已经导入 torch 的服务进程 fork 而来，"
        "只用一个算子内线程，并已调用 `torch.manual_seed(0)`；页面的输出在文件描述符层面捕获，经过规范化"
        "（对象地址、安装路径、日志时间戳）后，与 `recordings/` 下为这个 torch 版本记录的输出比较。"
        "输出不一致的代码块会使构建失败。输出用 Python {python} 记录；如果其他受支持的 Python 打印的结果不同，"
        "它的输出会另行记录，并折叠显示在代码块下方。",
    "Property": "项目",
    "Value": "值",
    "commit": "提交",
    "device": "设备",
    "blocks": "代码块数",
    "The machine-readable report is {link}.": "机器可读的报告见 {link}。",
    "Blocks by status": "各状态的代码块",
    "Status": "状态",
    "Blocks": "代码块数",
    "Meaning": "含义",
    "Pages": "各页面",
    "Page": "页面",
    "Seconds (as executed)": "秒数（执行时）",
    "The state every page starts in": "每个页面的初始状态",
    "Stable outputs": "稳定的输出",
    "The code that draws this figure": "绘制此图的代码",
    (
        "A page's output must mean the same on every run and every machine. What each chapter does for\n"
        "that, beyond the state above:"
    ): "页面的输出在每次运行、每台机器上都必须含义相同。除上面的初始状态外，各章为此所做的事：",
    "Before its first block, every page process runs this, so that no page depends on another\n"
    "or on the machine; every warning is shown, once per place, whatever Python's default\n"
    "filters would hide:":
        "每个页面进程在运行第一个代码块之前都会先运行下面的代码，使任何页面都不依赖于其他页面或所在的机器；"
        "每条警告都会显示（同一位置只显示一次），即使 Python 默认的过滤器会将其隐藏：",
    "GPU-only blocks": "仅限 GPU 的代码块",
    "Block": "代码块",
    "Recorded on": "记录环境",
    "not recorded yet": "尚未记录",
    "None.": "无。",

    # Source map (handbook.sources.source_map) and the source links (handbook.sources.links).
    "Source map": "源码索引",
    "Every PyTorch source file and symbol this handbook links to, at tag `{tag}`, grouped by chapter, with the "
    "sections that cite it. Lines are found by symbol in the installed torch at build time.":
        "本手册链接到的每个 PyTorch 源码文件和符号，均对应标签 `{tag}`，按章节分组，并列出引用它们的小节。"
        "行号是在构建时按符号在已安装的 torch 中查找的。",
    "Source": "源码",
    "Lines": "行",
    "Cited in": "引用位置",
    "file": "整个文件",
    "PyTorch {tag}: {path} lines {first}-{last}": "PyTorch {tag}：{path} 第 {first}-{last} 行",
    "PyTorch {tag}: {path}": "PyTorch {tag}：{path}",
    "{path}, lines {first}-{last} (PyTorch {tag})": "{path}，第 {first}-{last} 行（PyTorch {tag}）",
    "View {symbol} on GitHub": "在 GitHub 上查看 {symbol}",

    # What changed (handbook.reports.what_changed).
    "Note": "注意",
    "Nothing to compare yet: torch {release} has no recordings.":
        "暂无可比较的内容：torch {release} 还没有记录的输出。",
    "Of {total} recorded outputs, **{changed} differ** between torch {old} and torch {new}":
        "在 {total} 项记录的输出中，有 **{changed} 项**在 torch {old} 与 torch {new} 之间不同",
    ", {count} exist only for {release}": "，{count} 项只存在于 {release}",
    ", {count} only for {release}": "，{count} 项只存在于 {release}",
    ".": "。",
    "Introduction": "引言",
    "[Block {index} in context]({context}), from `{origin}`:":
        "[第 {index} 个代码块（在页面中查看）]({context})，源自 `{origin}`：",
    "Source anchors": "源码锚点",
    "No anchors are recorded for one of the releases.": "其中一个 torch 版本没有记录源码锚点。",
    "No linked symbol moved.": "链接的符号都没有移动位置。",
    "{moved} of {total} linked symbols moved:": "{total} 个链接的符号中有 {moved} 个移动了位置：",
    "Symbol": "符号",

    # A chapter's notebook (handbook.notebooks): its links on the page, the comments the build adds to its code.
    "Download notebook": "下载笔记本",
    "Open in Colab": "在 Colab 中打开",
    # A lab's page (handbook.lab_pages): the labels of its cells.
    "Complete this cell": "补全这个单元格",
    "Check": "检查",
    "Solution (try the exercise first)": "参考答案（请先自己尝试）",
    "# The outputs below were recorded with torch {torch}. Install it, then restart the kernel.":
        "# 下面的输出是用 torch {torch} 记录的。请先安装它，然后重启内核。",
    "# GPU-only: needs CUDA. On Colab, choose a GPU runtime (Runtime > Change runtime type).":
        "# 仅限 GPU：需要 CUDA。在 Colab 中请选择 GPU 运行时（代码执行程序 > 更改运行时类型）。",

    # A translated page's outdated section (handbook.translations).
    "This section's translation is outdated": "本节译文已过时",
    "The English original of this section changed on {date}; this translation has not caught up yet. "
    "[Read the English original]({url})":
        "英文原文的这一节于 {date} 修改，这里的译文还没有跟上。[阅读英文原文]({url})",
    "Translation status": "译文状态",
    "Every section translates its English original as it is now.": "每一节译文都对应英文原文的当前版本。",
    "These sections translate an older English original:": "以下各节的译文对应的是较旧的英文原文：",
    "Section": "章节",
    "English changed on": "英文修改于",
}
# fmt: on

CATALOGS = {"zh": ZH}
