from handbook.execution.page_history import PageHistory


def test_seconds_and_peaks_survive_a_save_and_unknown_pages_come_first(tmp_path):
    history = PageHistory(tmp_path / "history.json")
    history.update("a.md", 1.23456, 5 * 2**20)
    history.update("b.md", 2.0, 0)  # no peak measured (a page too short to sample): none kept
    history.save()
    again = PageHistory(tmp_path / "history.json")
    assert again.seconds == {"a.md": 1.235, "b.md": 2.0} and again.peaks == {"a.md": 5 * 2**20}
    assert again.expected_seconds("new.md") == float("inf") > again.expected_seconds("b.md")


def test_an_unreadable_or_old_history_is_an_empty_one(tmp_path):
    for text in ("not json", '{"page.md": 3.2}', "[1, 2]"):
        (tmp_path / "history.json").write_text(text)
        history = PageHistory(tmp_path / "history.json")
        assert history.seconds == {} and history.peaks == {}


def test_peaks_written_as_resident_sizes_are_not_read_as_proportional_ones(tmp_path):
    (tmp_path / "history.json").write_text('{"seconds": {"a.md": 2.5}, "peak_bytes": {"a.md": 1000}}')
    history = PageHistory(tmp_path / "history.json")
    assert history.seconds == {"a.md": 2.5} and history.peaks == {}
