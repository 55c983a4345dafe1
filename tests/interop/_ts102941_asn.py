"""A COER codec for ETSI TS 102 941 that is not ours: pycrate compiles the standard's ASN.1.

The ASN.1 text is pinned under tests/vectors/asn1/ts102941/v1.3.1 (see its README.md: TS 102
941 V1.3.1 with TS 103 097 V1.3.1 and the IEEE 1609.2 modules as TS 103 097 prints them; the
types the enrolment and authorization protocols use are the same in V2.2.1, which
test_pki.py checks). At import, `pycrate_asn1c` compiles the pinned files and generates Python
for `pycrate_asn1rt` into a temporary directory, which is then loaded. That takes well under a
second, so nothing generated is kept in the repository.

Two changes are made on the way, neither of which changes a single encoded bit:

* ETSI's text has "full specification" inner subtypes (`WITH COMPONENTS { a (…), b PRESENT }`)
  that leave out mandatory components, which X.680 does not allow and pycrate rejects. Each is
  compiled as a partial specification (`WITH COMPONENTS { ..., a (…), b PRESENT }`): the
  constraints only restrict values, the encoding of a SEQUENCE does not depend on them.
* pycrate 0.8.1 does not instantiate the parameterised `EtsiTs103097Data-Signed {T}` (its
  parameter is only used in a `CONTAINING` constraint), and leaves references to it unbound.
  They are bound to `EtsiTs103097Data`, which is what that type is on the wire: an
  `Ieee1609Dot2Data` whose payload is an OCTET STRING (decoded by the caller).
"""

from __future__ import annotations

import copy
import logging
import re
import tempfile
import types
from pathlib import Path

from pycrate_asn1c.asnproc import PycrateGenerator, compile_text, generate_modules

ASN1_DIR = Path(__file__).resolve().parents[1] / "vectors" / "asn1" / "ts102941" / "v1.3.1"

# A WITH COMPONENTS that does not start with "..." (a full specification).
_FULL_SPECIFICATION = re.compile(r"WITH COMPONENTS\s*\{(?!\s*\.\.\.)")
_SIGNED_REF = "ASN1RefType(('EtsiTs103097Module', 'EtsiTs103097Data-Signed'))"
_DATA_REF = "ASN1RefType(('EtsiTs103097Module', 'EtsiTs103097Data'))"

logging.getLogger("pycrate.asn1rt").setLevel(logging.WARNING)


def relaxed(text: str) -> str:
    """The ASN.1 `text` with every full-specification inner subtype made partial."""
    return _FULL_SPECIFICATION.sub("WITH COMPONENTS {..., ", text)


def _compile() -> types.ModuleType:
    """Compiles the pinned modules; the generated Python, loaded as a module."""
    files = sorted(ASN1_DIR.glob("*.asn"))
    assert files, f"no ASN.1 modules in {ASN1_DIR}"
    compile_text([relaxed(f.read_text()) for f in files], filenames=[str(f) for f in files])
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "ts102941_generated.py"
        generate_modules(PycrateGenerator, str(path))
        code = path.read_text()
    assert _SIGNED_REF in code, "pycrate now binds EtsiTs103097Data-Signed: drop the rebinding"
    code = code.replace(_SIGNED_REF, _DATA_REF)
    module = types.ModuleType("ts102941_generated")
    exec(compile(code, "<pycrate: TS 102 941 v1.3.1>", "exec"), module.__dict__)
    return module


_M = _compile()

EtsiTs102941Data = _M.EtsiTs102941MessagesCa.EtsiTs102941Data
InnerEcRequest = _M.EtsiTs102941TypesEnrolment.InnerEcRequest
SharedAtRequest = _M.EtsiTs102941TypesAuthorization.SharedAtRequest
PublicVerificationKey = _M.IEEE1609dot2BaseTypes.PublicVerificationKey
PublicEncryptionKey = _M.IEEE1609dot2BaseTypes.PublicEncryptionKey
SymmetricEncryptionKey = _M.IEEE1609dot2BaseTypes.SymmetricEncryptionKey
Ieee1609Dot2Data = _M.IEEE1609dot2.Ieee1609Dot2Data
EtsiTs103097Certificate = _M.EtsiTs103097Module.EtsiTs103097Certificate


def encode(asn_type, value) -> bytes:
    """The COER encoding of `value` as `asn_type`."""
    asn_type.set_val(copy.deepcopy(value))
    return asn_type.to_oer()


def decode(asn_type, data: bytes):
    """`data` decoded as `asn_type`, strictly: pycrate's error when it does not decode, and a
    ValueError when it is not the whole canonical COER encoding of what it decodes to."""
    asn_type.from_oer(data)
    value = copy.deepcopy(asn_type.get_val())
    again = encode(asn_type, value)
    if again != data:
        raise ValueError(f"{asn_type._name}: {data.hex()} is not the canonical COER of its "
                         f"value (that is {again.hex()})")
    return value
