;; Hex rows with WebAssembly SIMD: the default row of `airlock inspect` (16 bytes,
;; 8 offset digits), byte for byte what HexRowWriter.writeRows writes for it:
;;
;;   OOOOOOOO  hh hh hh hh hh hh hh hh  hh hh hh hh hh hh hh hh  |caret text|\n
;;
;; Written here: rows of ASCII bytes and of well-formed UTF-8 characters of 2 or 3 bytes that
;; lie wholly in the row and that the JavaScript writer has already shown as themselves once (a
;; bit per BMP code point it sets, SHOWN). `rows` stops before any other row (a character cut
;; by the row edge or carried into it, 4-byte characters, characters shown as notation, invalid
;; bytes, raw C1: the JavaScript writer knows their notation). It returns where its output ends
;; plus 2^32 times the rows it wrote, as one f64 (exact below 2^53): a second export to read
;; would cost a call or a slow global access.
;;
;; Memory (exported, laid out by row-simd.ts): bytes 0..256 hold the caret text of each ASCII byte
;; as two bytes (first, second), 256..384 its length (1 or 2), 1024..9216 the SHOWN bits (bit
;; cp & 7 of byte 1024 + cp >> 3); the caller's input and output live above.
;;
;; Why WebAssembly: one row costs ~100 ns of DataView stores in JavaScript here, and a full dump
;; writes a row per 16 input bytes; the SIMD row is a handful of shuffles, and it runs compiled
;; from the first call (no JIT warm-up).
(module
  (memory (export "memory") 1)
  ;; Writes up to `count` rows of 16 bytes from `in`, the first at stream offset `at` (the caller
  ;; keeps `at + count * 16` at most 2^32), into `out`; returns `end + rows * 2^32`.
  (func $rows (export "rows") (param $in i32) (param $count i32) (param $out i32) (param $at i32) (result f64)
    (local $r i32) (local $v v128) (local $hi v128) (local $lo v128) (local $d v128) (local $e v128)
    (local $o v128) (local $q i32) (local $k i32) (local $b i32) (local $c i32) (local $cp i32)
    (local $len i32) (local $low i32) (local $high i32) (local $utf8 i32)
    (block $stop
      (loop $row
        (br_if $stop (i32.ge_u (local.get $r) (local.get $count)))
        (local.set $v (v128.load align=1 (local.get $in)))
        ;; A byte from 0x80 on: the caret column is decoded byte by byte below.
        (local.set $utf8 (i8x16.bitmask (local.get $v)))

        ;; The offset: the 4 bytes of `at` most significant first, as 8 hex digits.
        (local.set $o (i8x16.swizzle (i32x4.splat (local.get $at))
          (v128.const i8x16 3 2 1 0 3 2 1 0 3 2 1 0 3 2 1 0)))
        (local.set $hi (i8x16.swizzle (v128.const i8x16 48 49 50 51 52 53 54 55 56 57 97 98 99 100 101 102)
          (i8x16.shr_u (local.get $o) (i32.const 4))))
        (local.set $lo (i8x16.swizzle (v128.const i8x16 48 49 50 51 52 53 54 55 56 57 97 98 99 100 101 102)
          (v128.and (local.get $o) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15))))
        (v128.store64_lane align=1 0 (local.get $out)
          (i8x16.shuffle 0 16 1 17 2 18 3 19 0 0 0 0 0 0 0 0 (local.get $hi) (local.get $lo)))

        ;; The hex column: each byte's two digits, interleaved (d: bytes 0-7, e: bytes 8-15).
        (local.set $hi (i8x16.swizzle (v128.const i8x16 48 49 50 51 52 53 54 55 56 57 97 98 99 100 101 102)
          (i8x16.shr_u (local.get $v) (i32.const 4))))
        (local.set $lo (i8x16.swizzle (v128.const i8x16 48 49 50 51 52 53 54 55 56 57 97 98 99 100 101 102)
          (v128.and (local.get $v) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15))))
        (local.set $d (i8x16.shuffle 0 16 1 17 2 18 3 19 4 20 5 21 6 22 7 23 (local.get $hi) (local.get $lo)))
        (local.set $e (i8x16.shuffle 8 24 9 25 10 26 11 27 12 28 13 29 14 30 15 31 (local.get $hi) (local.get $lo)))
        ;; out+8: `  h0l0 h1l1 h2l2 h3l3 h4l4` (lane 16 of the second operand is a space)
        (v128.store offset=8 align=1 (local.get $out)
          (i8x16.shuffle 16 16 0 1 16 2 3 16 4 5 16 6 7 16 8 9 (local.get $d) (v128.const i8x16 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32)))
        ;; out+24: ` h5l5 h6l6 h7l7  h8l8 h9l9`: digits from d and e, spaces put in by the mask
        (v128.store offset=24 align=1 (local.get $out)
          (v128.bitselect
            (v128.const i8x16 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32)
            (i8x16.shuffle 0 10 11 0 12 13 0 14 15 0 0 16 17 0 18 19 (local.get $d) (local.get $e))
            (v128.const i8x16 -1 0 0 -1 0 0 -1 0 0 -1 -1 0 0 -1 0 0)))
        ;; out+40: ` h10l10 h11l11 h12l12 h13l13 h14l14 `
        (v128.store offset=40 align=1 (local.get $out)
          (i8x16.shuffle 16 4 5 16 6 7 16 8 9 16 10 11 16 12 13 16 (local.get $e) (v128.const i8x16 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32)))
        ;; out+56: `h15l15  |` (the 11 bytes after it are overwritten by the caret column)
        (v128.store offset=56 align=1 (local.get $out)
          (i8x16.shuffle 14 15 16 16 17 0 0 0 0 0 0 0 0 0 0 0 (local.get $e) (v128.const i8x16 32 124 32 32 32 32 32 32 32 32 32 32 32 32 32 32)))

        ;; The caret column: a row with a byte from 0x80 on cell by cell (an ASCII byte's caret
        ;; text from the table, a character's bytes and its dots); else 16 bytes that show as
        ;; themselves (0x20-0x7E but \ ^ < |) in one store, or each byte's caret text from the
        ;; table (the same as the first loop's ASCII cells, kept apart: this loop, without the
        ;; character branch, is the one BEL/BS and colour rows run; one merged loop cost 10–35 %
        ;; more a row).
        (local.set $q (i32.add (local.get $out) (i32.const 61)))
        (if (local.get $utf8)
          (then
            (local.set $k (i32.const 0))
            (loop $cell
              (local.set $b (i32.load8_u (i32.add (local.get $in) (local.get $k))))
              (if (i32.lt_u (local.get $b) (i32.const 0x80))
                (then
                  (i32.store16 align=1 (local.get $q) (i32.load16_u align=1 (i32.shl (local.get $b) (i32.const 1))))
                  (local.set $q (i32.add (local.get $q) (i32.load8_u offset=256 (local.get $b))))
                  (local.set $k (i32.add (local.get $k) (i32.const 1))))
                (else
                  ;; A lead byte of 2 (C2-DF) or 3 (E0-EF) bytes, else JavaScript; the second
                  ;; byte's range per Unicode table 3-7 (E0: A0-BF, ED: 80-9F, others 80-BF).
                  (br_if $stop (i32.lt_u (local.get $b) (i32.const 0xc2)))
                  (br_if $stop (i32.ge_u (local.get $b) (i32.const 0xf0)))
                  (local.set $low (i32.const 0x80))
                  (local.set $high (i32.const 0xbf))
                  (if (i32.lt_u (local.get $b) (i32.const 0xe0))
                    (then
                      (local.set $len (i32.const 2))
                      (local.set $cp (i32.and (local.get $b) (i32.const 0x1f))))
                    (else
                      (local.set $len (i32.const 3))
                      (local.set $cp (i32.and (local.get $b) (i32.const 0x0f)))
                      (if (i32.eq (local.get $b) (i32.const 0xe0)) (then (local.set $low (i32.const 0xa0))))
                      (if (i32.eq (local.get $b) (i32.const 0xed)) (then (local.set $high (i32.const 0x9f))))))
                  ;; The whole character in this row.
                  (br_if $stop (i32.gt_u (i32.add (local.get $k) (local.get $len)) (i32.const 16)))
                  (local.set $c (i32.load8_u offset=1 (i32.add (local.get $in) (local.get $k))))
                  (br_if $stop (i32.lt_u (local.get $c) (local.get $low)))
                  (br_if $stop (i32.gt_u (local.get $c) (local.get $high)))
                  (local.set $cp (i32.or (i32.shl (local.get $cp) (i32.const 6)) (i32.and (local.get $c) (i32.const 0x3f))))
                  (i32.store8 (local.get $q) (local.get $b))
                  (i32.store8 offset=1 (local.get $q) (local.get $c))
                  (if (i32.eq (local.get $len) (i32.const 3))
                    (then
                      (local.set $c (i32.load8_u offset=2 (i32.add (local.get $in) (local.get $k))))
                      (br_if $stop (i32.ne (i32.and (local.get $c) (i32.const 0xc0)) (i32.const 0x80)))
                      (local.set $cp (i32.or (i32.shl (local.get $cp) (i32.const 6)) (i32.and (local.get $c) (i32.const 0x3f))))
                      (i32.store8 offset=2 (local.get $q) (local.get $c))))
                  ;; Shown as itself (JavaScript decided it once), else JavaScript writes the row.
                  (br_if $stop (i32.eqz (i32.and (i32.const 1)
                    (i32.shr_u (i32.load8_u offset=1024 (i32.shr_u (local.get $cp) (i32.const 3))) (i32.and (local.get $cp) (i32.const 7))))))
                  ;; Its bytes, then `·` (C2 B7) for each continuation byte: one cell per byte.
                  (local.set $q (i32.add (local.get $q) (local.get $len)))
                  (i32.store16 align=1 (local.get $q) (i32.const 0xb7c2))
                  (local.set $q (i32.add (local.get $q) (i32.const 2)))
                  (if (i32.eq (local.get $len) (i32.const 3))
                    (then
                      (i32.store16 align=1 (local.get $q) (i32.const 0xb7c2))
                      (local.set $q (i32.add (local.get $q) (i32.const 2)))))
                  (local.set $k (i32.add (local.get $k) (local.get $len)))))
              (br_if $cell (i32.lt_u (local.get $k) (i32.const 16))))))
        (if (i32.eqz (local.get $utf8)) (then
        (if (i32.and
              (i8x16.all_true (v128.and
                (i8x16.gt_u (local.get $v) (v128.const i8x16 31 31 31 31 31 31 31 31 31 31 31 31 31 31 31 31))
                (i8x16.lt_u (local.get $v) (v128.const i8x16 127 127 127 127 127 127 127 127 127 127 127 127 127 127 127 127))))
              (i32.eqz (v128.any_true (v128.or
                (v128.or
                  (i8x16.eq (local.get $v) (v128.const i8x16 92 92 92 92 92 92 92 92 92 92 92 92 92 92 92 92))
                  (i8x16.eq (local.get $v) (v128.const i8x16 94 94 94 94 94 94 94 94 94 94 94 94 94 94 94 94)))
                (v128.or
                  (i8x16.eq (local.get $v) (v128.const i8x16 60 60 60 60 60 60 60 60 60 60 60 60 60 60 60 60))
                  (i8x16.eq (local.get $v) (v128.const i8x16 124 124 124 124 124 124 124 124 124 124 124 124 124 124 124 124)))))))
          (then
            (v128.store align=1 (local.get $q) (local.get $v))
            (local.set $q (i32.add (local.get $q) (i32.const 16))))
          (else
            (local.set $k (i32.const 0))
            (loop $byte
              (local.set $b (i32.load8_u (i32.add (local.get $in) (local.get $k))))
              (i32.store16 align=1 (local.get $q) (i32.load16_u align=1 (i32.shl (local.get $b) (i32.const 1))))
              (local.set $q (i32.add (local.get $q) (i32.load8_u offset=256 (local.get $b))))
              (local.set $k (i32.add (local.get $k) (i32.const 1)))
              (br_if $byte (i32.lt_u (local.get $k) (i32.const 16))))))))
        ;; `|` and LF
        (i32.store16 align=1 (local.get $q) (i32.const 0x0a7c))
        (local.set $out (i32.add (local.get $q) (i32.const 2)))

        (local.set $in (i32.add (local.get $in) (i32.const 16)))
        (local.set $at (i32.add (local.get $at) (i32.const 16)))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $row)))
    (f64.add (f64.convert_i32_u (local.get $out))
      (f64.mul (f64.convert_i32_u (local.get $r)) (f64.const 4294967296))))

  ;; Rows as `rows` writes them, each followed by the annotation lines of the spans that start in
  ;; it (app/cli/inspect: AnnotationWriter), for the lines that are one span each and whose text
  ;; JavaScript has put in a template. `plan` holds `n` entries of 16 bytes in start order: the
  ;; span's start, its template slot (-1: JavaScript annotates this row), its length (below 1000).
  ;; A slot's line (`pool + slot * 256`) is the whole line with its offset and the last 4 columns
  ;; of its length field left to fill: `dir + slot * 8` holds its length, and where the length field
  ;; starts plus 2^16 times where the offset goes; `lenw + len * 4` the 4 columns of each length.
  ;; Stops before a row JavaScript writes (as `rows`) or annotates; returns as `rows`. Lines are
  ;; copied as a whole, then the two fields written: no branch per byte, and one call for a
  ;; stretch of rows instead of two per annotated row from JavaScript.
  (func (export "noted") (param $in i32) (param $count i32) (param $out i32) (param $at i32)
    (param $plan i32) (param $n i32) (param $pool i32) (param $dir i32) (param $lenw i32) (result f64)
    (local $r i32) (local $j i32) (local $end i32) (local $res f64) (local $e i32) (local $start i32)
    (local $slot i32) (local $d i32) (local $info i32) (local $o v128) (local $hi v128) (local $lo v128)
    (block $stop
      (loop $row
        (br_if $stop (i32.ge_u (local.get $r) (local.get $count)))
        (local.set $end (i32.add (local.get $at) (i32.const 16)))
        ;; The next span starts in this row and JavaScript annotates the row: stop before it.
        (if (i32.lt_u (local.get $j) (local.get $n))
          (then
            (local.set $e (i32.add (local.get $plan) (i32.shl (local.get $j) (i32.const 4))))
            (br_if $stop (i32.and
              (i32.lt_u (i32.load (local.get $e)) (local.get $end))
              (i32.lt_s (i32.load offset=4 (local.get $e)) (i32.const 0))))))
        (local.set $res (call $rows (local.get $in) (i32.const 1) (local.get $out) (local.get $at)))
        (br_if $stop (f64.lt (local.get $res) (f64.const 4294967296)))
        (local.set $out (i32.trunc_f64_u (f64.sub (local.get $res) (f64.const 4294967296))))
        (block $lines
          (loop $line
            (br_if $lines (i32.ge_u (local.get $j) (local.get $n)))
            (local.set $e (i32.add (local.get $plan) (i32.shl (local.get $j) (i32.const 4))))
            (local.set $start (i32.load (local.get $e)))
            (br_if $lines (i32.ge_u (local.get $start) (local.get $end)))
            (local.set $slot (i32.load offset=4 (local.get $e)))
            (local.set $d (i32.add (local.get $dir) (i32.shl (local.get $slot) (i32.const 3))))
            (local.set $info (i32.load offset=4 (local.get $d)))
            (memory.copy (local.get $out) (i32.add (local.get $pool) (i32.shl (local.get $slot) (i32.const 8))) (i32.load (local.get $d)))
            ;; The offset, 8 hex digits as in `rows`.
            (local.set $o (i8x16.swizzle (i32x4.splat (local.get $start))
              (v128.const i8x16 3 2 1 0 3 2 1 0 3 2 1 0 3 2 1 0)))
            (local.set $hi (i8x16.swizzle (v128.const i8x16 48 49 50 51 52 53 54 55 56 57 97 98 99 100 101 102)
              (i8x16.shr_u (local.get $o) (i32.const 4))))
            (local.set $lo (i8x16.swizzle (v128.const i8x16 48 49 50 51 52 53 54 55 56 57 97 98 99 100 101 102)
              (v128.and (local.get $o) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15))))
            (v128.store64_lane align=1 0 (i32.add (local.get $out) (i32.shr_u (local.get $info) (i32.const 16)))
              (i8x16.shuffle 0 16 1 17 2 18 3 19 0 0 0 0 0 0 0 0 (local.get $hi) (local.get $lo)))
            ;; The length: the field's last 4 columns (its first 2 are the template's spaces).
            (i32.store offset=2 align=1 (i32.add (local.get $out) (i32.and (local.get $info) (i32.const 0xffff)))
              (i32.load align=1 (i32.add (local.get $lenw) (i32.shl (i32.load offset=8 (local.get $e)) (i32.const 2)))))
            (local.set $out (i32.add (local.get $out) (i32.load (local.get $d))))
            (local.set $j (i32.add (local.get $j) (i32.const 1)))
            (br $line)))
        (local.set $in (i32.add (local.get $in) (i32.const 16)))
        (local.set $at (local.get $end))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $row)))
    (f64.add (f64.convert_i32_u (local.get $out))
      (f64.mul (f64.convert_i32_u (local.get $r)) (f64.const 4294967296))))
)
