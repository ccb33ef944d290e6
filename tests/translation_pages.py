"""A page and its Chinese translation, marked up to date, that the translation tests change and build
(tests/unit/test_translation_sections.py, tests/site/test_translations.py)."""

import textwrap

ORIGINAL = textwrap.dedent(
    """\
    # Tensors

    A tensor is metadata over a buffer.

    ## Views and `copies`

    A view shares memory.

    ```python exec="on"
    print(1)
    ```

    ## Strides {#the-strides}

    A stride is a step.
    """
)

TRANSLATED = textwrap.dedent(
    """\
    # 张量

    张量是一块缓冲区之上的元数据。

    ## 视图与副本 {#views-and-copies}

    视图共享内存。

    ```python exec="on"
    print(1)
    ```

    ## 步长 {#the-strides}

    步长是一次跨越的元素数。
    """
)
