"""Does τ-bench's airline data (7362a17) serve τ²-bench's airline runs? (docs/tau2-airline-data.md)

Compares every read the five shared τ² airline runs recorded before their simulation's first
successful write (so the database is still the initial one) with τ-bench's records:
``get_user_details`` and ``get_reservation_details`` record by record (byte for byte, then after
τ²'s renames and types: ``address.province`` -> ``state``, a ``user_id`` field, whole floats,
a null reservation ``status``, key order), ``search_direct_flight`` by flights, seats and prices,
``get_flight_status`` by status.

    python docs/tau2_airline_data.py [TAU_BENCH_DATA_DIR] [TAU2_RUNS_DIR]
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

SHARED = Path("/work/shared/real-runs")
WRITES = {
    "book_reservation",
    "cancel_reservation",
    "update_reservation_baggages",
    "update_reservation_flights",
    "update_reservation_passengers",
    "send_certificate",
}


def _plain(x: Any) -> Any:
    """Key order and whole floats do not count: τ² dumps 149.0 where τ-bench has 149."""
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in sorted(x.items())}
    if isinstance(x, list):
        return [_plain(v) for v in x]
    return int(x) if isinstance(x, float) and x.is_integer() else x


def _as_tau_bench(kind: str, record: dict[str, Any]) -> dict[str, Any]:
    out = dict(record)
    if kind == "user":
        out.pop("user_id", None)
        address = dict(out["address"])
        address["province"] = address.pop("state", None)
        out["address"] = address
    elif out.get("status") is None:
        out.pop("status", None)
    return out


def _fields(a: Any, b: Any, path: str = "") -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        return [f for k in sorted({*a, *b}) for f in _fields(a.get(k), b.get(k), f"{path}.{k}")]
    return [] if a == b else [f"{path}: τ² {json.dumps(a)} vs τ-bench {json.dumps(b)}"]


def main(data_dir: Path, runs_dir: Path) -> dict[str, Any]:
    table = {
        "user": json.loads((data_dir / "users.json").read_text()),
        "reservation": json.loads((data_dir / "reservations.json").read_text()),
    }
    flights = json.loads((data_dir / "flights.json").read_text())
    counts: Counter[str] = Counter()
    differ: dict[str, list[str]] = {}
    seen: dict[str, set[str]] = {"user": set(), "reservation": set()}
    for path in sorted(runs_dir.glob("*airline*.json")):
        for sim in json.loads(path.read_text())["simulations"]:
            results = {m["id"]: m["content"] for m in sim["messages"] if m["role"] == "tool"}
            wrote = False
            for msg in sim["messages"]:
                for call in (msg.get("tool_calls") or []) if msg["role"] == "assistant" else []:
                    name, args, got = call["name"], call["arguments"], results.get(call["id"], "")
                    wrote |= name in WRITES and not got.startswith("Error")
                    if wrote:
                        continue
                    if name in ("get_user_details", "get_reservation_details"):
                        kind = name.split("_")[1]
                        key = args.get(f"{kind}_id")
                        rec = table[kind].get(key)
                        if got.startswith("Error") or rec is None:
                            counts[f"{kind}: error or absent in τ-bench"] += 1
                            continue
                        seen[kind].add(key)
                        if got == json.dumps(rec):
                            counts[f"{kind}: byte-equal"] += 1
                            continue
                        diff = _fields(_plain(_as_tau_bench(kind, json.loads(got))), _plain(rec))
                        counts[f"{kind}: {'differs' if diff else 'equal after renames/types'}"] += 1
                        if diff:
                            differ[f"{kind} {key}"] = diff
                    elif name == "search_direct_flight" and not got.startswith("Error"):
                        want = {
                            n: f["dates"][args["date"]]
                            for n, f in flights.items()
                            if (f["origin"], f["destination"])
                            == (args["origin"], args["destination"])
                            and f["dates"].get(args["date"], {}).get("status") == "available"
                        }
                        same = sorted(g["flight_number"] for g in json.loads(got)) == sorted(
                            want
                        ) and all(
                            (g["available_seats"], g["prices"])
                            == (
                                want[g["flight_number"]]["available_seats"],
                                want[g["flight_number"]]["prices"],
                            )
                            for g in json.loads(got)
                        )
                        counts[f"search_direct_flight: {'same' if same else 'differs'}"] += 1
                    elif name == "get_flight_status":
                        rec = (
                            flights.get(args["flight_number"], {})
                            .get("dates", {})
                            .get(args["date"])
                        )
                        same = rec is not None and got == rec["status"]
                        counts[f"get_flight_status: {'same' if same else 'differs'}"] += 1
                        if not same:
                            differ[f"status {args['flight_number']} {args['date']}"] = [
                                f"τ² {got!r} vs τ-bench {rec and rec['status']!r}"
                            ]
    return {
        "counts": dict(sorted(counts.items())),
        "distinct records read": {k: len(v) for k, v in seen.items()},
        "records in τ-bench": {k: len(v) for k, v in table.items()},
        "differences": differ,
    }


if __name__ == "__main__":
    args = [Path(a) for a in sys.argv[1:]]
    data = args[0] if args else SHARED / "tau-bench-airline" / "data-7362a17"
    runs = args[1] if len(args) > 1 else SHARED / "tau2-bench" / "runs"
    print(json.dumps(main(data, runs), indent=1, ensure_ascii=False))
