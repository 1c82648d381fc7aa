"""codec.py: AIS wire encodings, as the spec (docs/ais-rest-api.md) states them.

- strict decoding of the inner `value` of list / create-inventory messages
  (unknown key -> error, `flags` only as a quoted decimal, numbers only as JSON
  integers), and the lenient, case-insensitive top-level ActMsg;
- LsoRes in msgpack exactly as tinylib/msgp writes it (section 7: fixed key order,
  compact signed ints that never use uint markers, empty array never nil) and in
  JSON (section 1: snake_case keys, size as a string, entries null when empty);
- the error body of section 0.1.

A list entry is a tuple (name, size, checksum, flags); checksum "" and size/flags 0
mean absent, as the omitempty rules of the Go structs say.
"""

import json
import struct


class BadRequest(Exception):
    """Invalid request content; becomes a 400 (or `status`) in the section 0.1 shape."""

    def __init__(self, message, status=400, tcode=""):
        super().__init__(message)
        self.status = status
        self.tcode = tcode


# ---------------------------------------------------------------------------
# request decoding

def _lower_keys(obj):
    # jsoniter's default config matches keys case-insensitively; the last duplicate wins.
    return {k.lower(): v for k, v in obj.items()}


def parse_actmsg(body):
    """Top-level {"action","name","value"}: case-insensitive, unknown keys ignored."""
    if not body:
        raise BadRequest("failed to read action message: empty body (expecting JSON "
                         '{"action":...,"name":...,"value":...})')
    try:
        obj = json.loads(body)
    except (ValueError, UnicodeDecodeError, RecursionError) as e:
        raise BadRequest(f"failed to unmarshal JSON action message: {e}") from None
    if not isinstance(obj, dict):
        raise BadRequest("failed to unmarshal JSON action message: not an object")
    obj = _lower_keys(obj)
    action = obj.get("action")
    name = obj.get("name")
    if action is None:
        action = ""
    if name is None:
        name = ""
    if not isinstance(action, str) or not isinstance(name, str):
        raise BadRequest("failed to unmarshal JSON action message: action and name must be strings")
    return action, name, obj.get("value"), ("value" in obj and obj["value"] is not None)


def _str(v, key, etag):
    if v is None:
        return ""
    if not isinstance(v, str):
        raise BadRequest(f"{etag}: {key}: expecting a JSON string, got {json.dumps(v)[:64]}")
    return v


def _int(v, key, etag):
    if v is None:
        return 0
    if isinstance(v, bool) or not isinstance(v, int):
        raise BadRequest(f"{etag}: {key}: expecting a JSON integer, got {json.dumps(v)[:64]}")
    if not -(1 << 63) <= v < (1 << 63):
        raise BadRequest(f"{etag}: {key}: {v} overflows int64")
    return v


def _flags(v, etag):
    # Go tag `json:"flags,string"`: the number must come as a quoted decimal uint64.
    if v is None:
        return 0
    if not isinstance(v, str):
        raise BadRequest(f"{etag}: flags: expecting a quoted decimal (e.g. \"32768\"), got {json.dumps(v)[:64]}")
    if not v.isascii() or not v.isdigit():
        raise BadRequest(f"{etag}: flags: invalid uint64 {v!r}")
    n = int(v)
    if n >= 1 << 64:
        raise BadRequest(f"{etag}: flags: {v} overflows uint64")
    return n


def _bool(v, key, etag):
    if v is None:
        return False
    if not isinstance(v, bool):
        raise BadRequest(f"{etag}: {key}: expecting true or false, got {json.dumps(v)[:64]}")
    return v


def _hdr(v, etag):
    if v is None:
        return {}
    if not isinstance(v, dict) or not all(
            isinstance(x, list) and all(isinstance(s, str) for s in x) for x in v.values()):
        raise BadRequest(f"{etag}: hdr: expecting an object of string arrays")
    return v


_LSO_FIELDS = {
    "uuid": _str, "props": _str, "prefix": _str, "continuation_token": _str,
    "pagesize": _int, "flags": None, "target": _str, "start_after": _str,
    "time_format": _str, "hdr": None,
}
_NBI_FIELDS = dict(_LSO_FIELDS, name=_str, names_per_chunk=_int, force=_bool)


def _strict(value, fields, etag):
    if not isinstance(value, dict):
        raise BadRequest(f"{etag}: expecting a JSON object as the message value, got {json.dumps(value)[:64]}")
    out = {}
    for k, v in value.items():
        lk = k.lower()
        if lk not in fields:
            # cos.JSON has DisallowUnknownFields: true
            raise BadRequest(f"{etag}: found unknown field {k!r}")
        if lk == "flags":
            out[lk] = _flags(v, etag)
        elif lk == "hdr":
            out[lk] = _hdr(v, etag)
        else:
            out[lk] = fields[lk](v, lk, etag)
    for k, f in fields.items():
        if k not in out:
            out[k] = {"flags": 0, "hdr": {}, "pagesize": 0, "names_per_chunk": 0, "force": False}.get(k, "")
    return out


def parse_lsomsg(value):
    return _strict(value, _LSO_FIELDS, "invalid list-objects message")


def parse_nbimsg(value):
    return _strict(value, _NBI_FIELDS, "invalid 'create-inventory'")


def parse_querymsg(body):
    """xact QueryMsg for what=status|qryxstats: case-insensitive, unknown keys ignored."""
    if not body:
        return {}
    try:
        obj = json.loads(body)
    except (ValueError, UnicodeDecodeError, RecursionError) as e:
        raise BadRequest(f"failed to unmarshal JSON query message: {e}") from None
    if obj is None:
        return {}
    if not isinstance(obj, dict):
        raise BadRequest("failed to unmarshal JSON query message: not an object")
    obj = _lower_keys(obj)
    out = {}
    for k in ("id", "kind", "node", "daemonid"):
        v = obj.get(k)
        if v is not None and not isinstance(v, str):
            raise BadRequest(f"failed to unmarshal JSON query message: {k} must be a string")
        out[k] = v or ""
    return out


def accepts_msgpack(accept, version):
    """cos.AcceptsMsgPack (>= 4.6: media-type list with q=) or the older substring test."""
    if not accept:
        return False
    if version < (4, 6):
        return "application/msgpack" in accept
    for part in accept.split(","):
        fields = [f.strip() for f in part.split(";")]
        if fields[0].lower() != "application/msgpack":
            continue
        q = 1.0
        for p in fields[1:]:
            if p.lower().startswith("q="):
                try:
                    q = float(p[2:])
                except ValueError:
                    q = 0.0
        if q > 0:
            return True
    return False


# ---------------------------------------------------------------------------
# msgpack, the tinylib/msgp way

def _mp_str(out, s):
    b = s.encode("utf-8", "surrogatepass")
    n = len(b)
    if n < 32:
        out.append(bytes((0xA0 | n,)))
    elif n < 0x100:
        out.append(bytes((0xD9, n)))
    elif n < 0x10000:
        out.append(b"\xda" + struct.pack(">H", n))
    else:
        out.append(b"\xdb" + struct.pack(">I", n))
    out.append(b)


def _mp_int(out, i):
    # msgp AppendInt64: positive fixint, then int16/int32/int64 (never int8 or uint for i >= 0)
    if 0 <= i <= 127:
        out.append(bytes((i,)))
    elif i >= 0:
        if i <= 0x7FFF:
            out.append(b"\xd1" + struct.pack(">h", i))
        elif i <= 0x7FFFFFFF:
            out.append(b"\xd2" + struct.pack(">i", i))
        else:
            out.append(b"\xd3" + struct.pack(">q", i))
    elif i >= -32:
        out.append(struct.pack(">b", i))
    elif i >= -128:
        out.append(b"\xd0" + struct.pack(">b", i))
    elif i >= -32768:
        out.append(b"\xd1" + struct.pack(">h", i))
    elif i >= -(1 << 31):
        out.append(b"\xd2" + struct.pack(">i", i))
    else:
        out.append(b"\xd3" + struct.pack(">q", i))


def _mp_uint(out, u):
    if u <= 127:
        out.append(bytes((u,)))
    elif u <= 0xFF:
        out.append(bytes((0xCC, u)))
    elif u <= 0xFFFF:
        out.append(b"\xcd" + struct.pack(">H", u))
    elif u <= 0xFFFFFFFF:
        out.append(b"\xce" + struct.pack(">I", u))
    else:
        out.append(b"\xcf" + struct.pack(">Q", u))


_K_N = b"\xa1n"
_K_CS = b"\xa2cs"
_K_S = b"\xa1s"
_K_F = b"\xa1f"


def msgpack_lsores(uuid, token, entries, flags=0):
    """LsoRes as msgp encodes it: fixmap(4) UUID, ContinuationToken, Entries, Flags."""
    out = [b"\x84\xa4UUID"]
    _mp_str(out, uuid)
    out.append(b"\xb1ContinuationToken")
    _mp_str(out, token)
    out.append(b"\xa7Entries")
    n = len(entries)
    if n < 16:
        out.append(bytes((0x90 | n,)))
    elif n < 0x10000:
        out.append(b"\xdc" + struct.pack(">H", n))
    else:
        out.append(b"\xdd" + struct.pack(">I", n))
    for name, size, cs, fl in entries:
        cnt = 1 + (cs != "") + (size != 0) + (fl != 0)
        out.append(bytes((0x80 | cnt,)))
        out.append(_K_N)
        _mp_str(out, name)
        if cs:
            out.append(_K_CS)
            _mp_str(out, cs)
        if size:
            out.append(_K_S)
            _mp_int(out, size)
        if fl:
            out.append(_K_F)
            _mp_uint(out, fl)
    out.append(b"\xa5Flags")
    _mp_uint(out, flags)
    return b"".join(out)


# ---------------------------------------------------------------------------
# JSON

def _dumps(obj):
    # cos.JSON: EscapeHTML false, compact, UTF-8 as is
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def json_body(obj, pretty=False):
    """_writejs: compact JSON with a trailing newline (indented for a browser)."""
    text = json.dumps(obj, ensure_ascii=False, indent="  ") if pretty else _dumps(obj)
    return (text + "\n").encode("utf-8", "surrogatepass")


def json_lsores(uuid, token, entries, flags=0, pretty=False):
    ents = None
    if entries:
        ents = []
        for name, size, cs, fl in entries:
            e = {"name": name}
            if cs:
                e["checksum"] = cs
            if size:
                e["size"] = str(size)
            if fl:
                e["flags"] = fl
            ents.append(e)
    return json_body({"uuid": uuid, "continuation_token": token, "entries": ents, "flags": flags}, pretty)


def error_body(status, message, method, url_path, remote_addr, node, tcode=""):
    """Section 0.1 ErrHTTP, Go field order, newline-terminated (correction 3)."""
    e = {}
    if tcode:
        e["tcode"] = tcode
    e.update(message=message, method=method, url_path=url_path, remote_addr=remote_addr,
             caller="", node=node, status=status)
    return _dumps(e)
