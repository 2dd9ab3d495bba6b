#!/usr/bin/env python3
"""Regenerates the seed corpus of the fuzz targets (tests/fuzz/corpus/<target>/) from the golden files in
tests/data, a few KB per target: the inputs libFuzzer starts mutating from. Run from anywhere."""
import hashlib
import json
import pathlib
import shutil

ROOT = pathlib.Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
CORPUS = ROOT / "tests" / "fuzz" / "corpus"
MAX_SEED = 2048  # bytes; keeps the corpus small and each run fast


def put(target, blob, seeds):
    if isinstance(blob, str):
        blob = blob.encode()
    if len(blob) <= MAX_SEED:
        seeds.setdefault(target, {})[hashlib.sha1(blob).hexdigest()[:16]] = blob


def main():
    seeds = {}
    remoting = json.loads((DATA / "remoting.json").read_text())
    for cmd in remoting["commands"]:
        for enc in cmd["encodings"].values():
            frame = bytes.fromhex(enc["encode_hex"])
            put("fuzz_command", frame[4:], seeds)  # decode_payload takes the frame after its length field
    bodies = json.loads((DATA / "bodies.json").read_text())
    selector = {"TopicRouteData": 0, "GetConsumerListByGroupResponseBody": 1, "HeartbeatData": 2,
                "LockBatchRequestBody": 3, "LockBatchResponseBody": 4, "ResetOffsetBody": 5}
    for body in bodies["bodies"]:
        cls = body["class"].rsplit(".", 1)[-1]
        if cls in selector:
            for key in ("json", "json_standard"):
                if body.get(key):
                    put("fuzz_json_bodies", bytes([selector[cls]]) + body[key].encode(), seeds)
    codec = json.loads((DATA / "message_codec.json").read_text())
    for pull in codec["pull_bodies"]:
        put("fuzz_messages", bytes.fromhex(pull["hex"]), seeds)
    for p in codec["properties_parse"][:8]:
        put("fuzz_messages", bytes.fromhex(p["utf8_hex"]), seeds)
    for expr in ["*", "", "TagA || TagB", "a||b|| c ||", "||", "SQL92\na > 5 AND b = 'x'", "TAG\n中文||x"]:
        put("fuzz_subscription", expr, seeds)
    for text in ["a=10;region=eu\na > 5 AND region = 'eu'", "a=abc\na BETWEEN 1 AND 3 OR a IS NULL",
                 "\n(NOT (a IN ('x', 'y'))) AND b CONTAINS 'z' -- c\n",
                 "a=1.5\na = -1.5e3 OR a <> 2147483648L /* x */ OR a NOT STARTSWITH 'it''s'"]:
        put("fuzz_sql_filter", text, seeds)  # properties "k=v;k=v", a line break, the expression
    for text in [
        '{"offsetTable":{}}',
        '{\n\t"offsetTable":{{\n\t\t\t"brokerName":"b",\n\t\t\t"queueId":0,\n\t\t\t"topic":"t"\n\t\t}:42}\n}',
        '{"offsetTable":{"{\\"brokerName\\":\\"b\\",\\"queueId\\":1,\\"topic\\":\\"t\\"}":7},"x":[1,{"y":2}]}',
    ]:
        put("fuzz_offset_file", text, seeds)
    for target, files in seeds.items():
        d = CORPUS / target
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir(parents=True)
        for name, blob in files.items():
            (d / name).write_bytes(blob)
        print(f"{target}: {len(files)} seeds, {sum(map(len, files.values()))} bytes")


if __name__ == "__main__":
    main()
