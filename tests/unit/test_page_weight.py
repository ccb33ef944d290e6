from handbook.page_weight import without_plain_token_spans


def test_names_operators_punctuation_and_whitespace_lose_their_spans_and_keep_their_text():
    html = (
        '<code><span class="n">x</span><span class="w"> </span><span class="o">=</span><span class="w"> </span>'
        '<span class="n">torch</span><span class="o">.</span><span class="n">ones</span><span class="p">(</span>'
        '<span class="mi">2</span><span class="p">)</span></code>'
    )
    assert without_plain_token_spans(html) == '<code>x = torch.ones(<span class="mi">2</span>)</code>'


def test_other_spans_and_escaped_text_are_left_as_they_are():
    html = (
        '<span class="nf">f</span><span class="n">a&lt;b</span>'
        '<span class="pytorch-where">x.h</span><span class="s2">"n"</span><span class="ow">in</span>'
    )
    assert without_plain_token_spans(html) == (
        '<span class="nf">f</span>a&lt;b<span class="pytorch-where">x.h</span><span class="s2">"n"</span>'
        '<span class="ow">in</span>'
    )
