"""The device records keep the model each unanswered device benchmark named, at most
``MAX_PENDING_BENCHES`` of them: sessions that never answer cannot grow the server's memory."""

from server.flow import device_records
from server.flow.device_records import DeviceRecords


def test_unanswered_benchmarks_are_kept_up_to_the_cap_newest_first(monkeypatch) -> None:
    monkeypatch.setattr(device_records, "MAX_PENDING_BENCHES", 3)
    records = DeviceRecords(engine=None, events=None)  # type: ignore[arg-type]  # neither is used here
    for n in range(5):
        records.note_command("p1", "bench.start", {"sid": f"s{n}", "model": f"m{n}.mnn"})
    records.note_command("p1", "bench.start", {"sid": "s2", "model": "again.mnn"})
    assert dict(records._benched.items()) == {("p1", "s3"): "m3.mnn", ("p1", "s4"): "m4.mnn",
                                ("p1", "s2"): "again.mnn"}
    records.note_command("p1", "sync.start", {"sid": "s9", "model": "x.mnn"})  # not a benchmark
    assert ("p1", "s9") not in records._benched
