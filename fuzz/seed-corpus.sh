#!/usr/bin/env bash
# Fills fuzz/corpus/<target>/ with the published vectors (tests/vectors/its), for
# its_decode encrypted data made by `vss its encrypt` to the ETSI ticket the targets decrypt
# with, and for its_times, pki_intake, gn_packet and prepared_verify their committed seeds (fuzz/seeds/<target>). Run
# from anywhere after `cargo build -p vss-cli`.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
vss="${VSS_BIN:-$root/target/debug/vss}"
corpus="$root/fuzz/corpus"
mkdir -p "$corpus"/its_decode "$corpus"/its_certificate "$corpus"/its_verify
for target in its_times pki_intake gn_packet prepared_verify; do
  mkdir -p "$corpus/$target"
  cp "$root"/fuzz/seeds/"$target"/* "$corpus/$target/"
done
while IFS= read -r -d '' file; do
  for target in its_decode its_certificate its_verify; do
    cp "$file" "$corpus/$target/"
  done
done < <(find "$root/tests/vectors/its" -name '*.oer' -print0)
ticket="$root/tests/vectors/its/etsi-ats/CERT_IUT_A_AT.oer"
cam="$root/tests/vectors/its/captures/vanetza_cam_golf8_signer_certificate.oer"
printf 'a payload' > "$corpus/payload.bin"
"$vss" its encrypt --to "$ticket" --payload "$corpus/payload.bin" \
  --out "$corpus/its_decode/encrypted_payload.oer" >/dev/null
"$vss" its encrypt --to "$ticket" --data "$cam" \
  --out "$corpus/its_decode/encrypted_cam.oer" >/dev/null
rm "$corpus/payload.bin"
echo "corpus: $(find "$corpus" -type f | wc -l) files in $corpus"
