;; The frame scanner's WebAssembly module (source of the bytes in frame-scan-module.ts; `pnpm --filter
;; @acpkit/remote wasm` assembles it with wabt, and frame-scan-module.test.ts checks the two agree).
;;
;; Memory layout (one memory, 6 pages):
;;   [INPUT, INPUT + 256 KiB + 64)  the frame (or a window of a long string for $find), then a 0 sentinel byte
;;   [RESULTS, RESULTS + 16)          after $scan: raw line breaks seen (0/1), deepest nesting, member and object
;;                                   records made (i32 each; read through memory, cheaper than exported globals)
;;   [STACK, STACK + 32 KiB)         one bit per open container: 1 object, 0 array
;;   [LEVELS, LEVELS + 512)          per depth <= record depth + 1: object record (i32) and member record (i32)
;;   [OBJECTS, OBJECTS + 4 KiB)      256 object records of 16 bytes: open, close, member count, unused
;;   [MEMBERS, MEMBERS + 32 KiB)     1024 member records of 32 bytes: object, key start, key end, flags,
;;                                   value start, value end, child object, unused
;;                                   (flags: bit 0 key escaped, bit 1 value escaped, bits 4-7 value kind)
;;
;; $scan validates strict JSON (exactly what JSON.parse accepts, given valid UTF-8) and records the members of
;; objects on object-only paths down to a depth; the JavaScript side matches their keys against a watch tree.
;; Reads never need a bounds check: the caller writes a 0 byte after the frame, and a 0 byte is invalid everywhere
;; in JSON (not whitespace, not a token, not allowed raw in a string), so every loop stops on it.
(module
  (memory (export "memory") 6)

  (global $line_breaks (mut i32) (i32.const 0))
  (global $max_depth (mut i32) (i32.const 0))
  (global $member_count (mut i32) (i32.const 0))
  (global $object_count (mut i32) (i32.const 0))
  ;; Set by $string and $scalar: whether the string just read had an escape, and the kind of the value.
  (global $escaped (mut i32) (i32.const 0))
  (global $kind (mut i32) (i32.const 0))

  ;; Offsets of the regions (see above) and record limits.
  (global $STACK i32 (i32.const 262208))   ;; 256 KiB + 64
  (global $LEVELS i32 (i32.const 294976))  ;; STACK + 32 KiB
  (global $OBJECTS i32 (i32.const 295488)) ;; LEVELS + 512
  (global $MEMBERS i32 (i32.const 299584)) ;; OBJECTS + 4 KiB
  (global $RESULTS i32 (i32.const 332352)) ;; MEMBERS + 32 KiB
  (global $MAX_OBJECTS i32 (i32.const 256))
  (global $MAX_MEMBERS i32 (i32.const 1024))

  ;; Value kinds, as ValueKind in frame-scan.ts.
  (global $KIND_STRING i32 (i32.const 0))
  (global $KIND_NUMBER i32 (i32.const 1))
  (global $KIND_NULL i32 (i32.const 2))
  (global $KIND_TRUE i32 (i32.const 3))
  (global $KIND_FALSE i32 (i32.const 4))
  (global $KIND_OBJECT i32 (i32.const 5))
  (global $KIND_ARRAY i32 (i32.const 6))

  ;; Sixteen lanes of the bytes that end a run of string content: a quote, a backslash, anything below 0x20. The
  ;; comparisons are written out where they are used (V8 does not inline WebAssembly calls).
  (global $QUOTES v128 (v128.const i8x16 0x22 0x22 0x22 0x22 0x22 0x22 0x22 0x22 0x22 0x22 0x22 0x22 0x22 0x22 0x22 0x22))
  (global $BACKSLASHES v128 (v128.const i8x16 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c))
  (global $SPACES v128 (v128.const i8x16 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20))

  ;; The offset of the first quote, backslash or control byte in memory[0, length), or length. Used for long strings
  ;; of frames too big for $scan, a window at a time.
  (func (export "find") (param $length i32) (result i32)
    (local $at i32) (local $byte i32) (local $v v128)
    (if (i32.ge_u (local.get $length) (i32.const 64))
      (then (local.set $at (call $plain_64 (i32.const 0) (i32.sub (local.get $length) (i32.const 64))))))
    (block $tail
      (loop $sixteen
        (br_if $tail (i32.gt_u (i32.add (local.get $at) (i32.const 16)) (local.get $length)))
        (local.set $v (v128.load (local.get $at)))
        (local.set $byte (i8x16.bitmask
          (v128.or
            (v128.or (i8x16.eq (local.get $v) (global.get $QUOTES)) (i8x16.eq (local.get $v) (global.get $BACKSLASHES)))
            (i8x16.lt_u (local.get $v) (global.get $SPACES)))))
        (if (local.get $byte)
          (then (return (i32.add (local.get $at) (i32.ctz (local.get $byte))))))
        (local.set $at (i32.add (local.get $at) (i32.const 16)))
        (br $sixteen)))
    (block $done
      (loop $one
        (br_if $done (i32.ge_u (local.get $at) (local.get $length)))
        (local.set $byte (i32.load8_u (local.get $at)))
        (br_if $done
          (i32.or
            (i32.or (i32.eq (local.get $byte) (i32.const 0x22)) (i32.eq (local.get $byte) (i32.const 0x5c)))
            (i32.lt_u (local.get $byte) (i32.const 0x20))))
        (local.set $at (i32.add (local.get $at) (i32.const 1)))
        (br $one)))
    (local.get $at))

  ;; From $at, skips 64-byte blocks with no quote, backslash or control byte while $at <= $last; returns where it
  ;; stopped (the block that has one, or past $last).
  (func $plain_64 (param $at i32) (param $last i32) (result i32)
    (local $a v128) (local $b v128) (local $c v128) (local $d v128)
    (block $stop
      (loop $next
        (br_if $stop (i32.gt_u (local.get $at) (local.get $last)))
        (local.set $a (v128.load offset=0 (local.get $at)))
        (local.set $b (v128.load offset=16 (local.get $at)))
        (local.set $c (v128.load offset=32 (local.get $at)))
        (local.set $d (v128.load offset=48 (local.get $at)))
        (br_if $stop
          (v128.any_true
            (v128.or
              (v128.or
                (v128.or
                  (v128.or (i8x16.eq (local.get $a) (global.get $QUOTES)) (i8x16.eq (local.get $a) (global.get $BACKSLASHES)))
                  (i8x16.lt_u (local.get $a) (global.get $SPACES)))
                (v128.or
                  (v128.or (i8x16.eq (local.get $b) (global.get $QUOTES)) (i8x16.eq (local.get $b) (global.get $BACKSLASHES)))
                  (i8x16.lt_u (local.get $b) (global.get $SPACES))))
              (v128.or
                (v128.or
                  (v128.or (i8x16.eq (local.get $c) (global.get $QUOTES)) (i8x16.eq (local.get $c) (global.get $BACKSLASHES)))
                  (i8x16.lt_u (local.get $c) (global.get $SPACES)))
                (v128.or
                  (v128.or (i8x16.eq (local.get $d) (global.get $QUOTES)) (i8x16.eq (local.get $d) (global.get $BACKSLASHES)))
                  (i8x16.lt_u (local.get $d) (global.get $SPACES)))))))
        (local.set $at (i32.add (local.get $at) (i32.const 64)))
        (br $next)))
    (local.get $at))

  ;; Skips JSON whitespace from $at; notes raw line breaks.
  (func $skip_whitespace (param $at i32) (result i32)
    (local $byte i32)
    (loop $next
      (local.set $byte (i32.load8_u (local.get $at)))
      (if (i32.or (i32.eq (local.get $byte) (i32.const 0x20)) (i32.eq (local.get $byte) (i32.const 0x09)))
        (then
          (local.set $at (i32.add (local.get $at) (i32.const 1)))
          (br $next)))
      (if (i32.or (i32.eq (local.get $byte) (i32.const 0x0a)) (i32.eq (local.get $byte) (i32.const 0x0d)))
        (then
          (global.set $line_breaks (i32.const 1))
          (local.set $at (i32.add (local.get $at) (i32.const 1)))
          (br $next))))
    (local.get $at))

  (func $is_hex (param $byte i32) (result i32)
    (i32.or
      (i32.lt_u (i32.sub (local.get $byte) (i32.const 0x30)) (i32.const 10))
      (i32.lt_u (i32.sub (i32.or (local.get $byte) (i32.const 0x20)) (i32.const 0x61)) (i32.const 6))))

  ;; A string whose opening quote is at $at: returns the offset after its closing quote, or -1. Sixteen bytes per
  ;; step to the next quote, backslash or control byte. Sets $escaped.
  (func $string (param $at i32) (result i32)
    (local $mask i32) (local $byte i32) (local $v v128)
    (global.set $escaped (i32.const 0))
    (local.set $at (i32.add (local.get $at) (i32.const 1)))
    (loop $next
      (local.set $v (v128.load (local.get $at)))
      (local.set $mask (i8x16.bitmask
        (v128.or
          (v128.or (i8x16.eq (local.get $v) (global.get $QUOTES)) (i8x16.eq (local.get $v) (global.get $BACKSLASHES)))
          (i8x16.lt_u (local.get $v) (global.get $SPACES)))))
      (if (i32.eqz (local.get $mask))
        (then
          ;; A long run: 64 bytes per step to the block with the next special byte (the sentinel ends every run).
          (local.set $at (call $plain_64 (i32.add (local.get $at) (i32.const 16)) (i32.const 0x7fffffff)))
          (br $next)))
      (local.set $at (i32.add (local.get $at) (i32.ctz (local.get $mask))))
      (local.set $byte (i32.load8_u (local.get $at)))
      (if (i32.eq (local.get $byte) (i32.const 0x22))
        (then (return (i32.add (local.get $at) (i32.const 1)))))
      (if (i32.ne (local.get $byte) (i32.const 0x5c)) (then (return (i32.const -1))))
      ;; An escape: \" \\ \/ \b \f \n \r \t, or \u and four hex digits.
      (global.set $escaped (i32.const 1))
      (local.set $byte (i32.load8_u offset=1 (local.get $at)))
      (if (i32.eq (local.get $byte) (i32.const 0x75))
        (then
          (if (i32.eqz
                (i32.and
                  (i32.and
                    (call $is_hex (i32.load8_u offset=2 (local.get $at)))
                    (call $is_hex (i32.load8_u offset=3 (local.get $at))))
                  (i32.and
                    (call $is_hex (i32.load8_u offset=4 (local.get $at)))
                    (call $is_hex (i32.load8_u offset=5 (local.get $at))))))
            (then (return (i32.const -1))))
          (local.set $at (i32.add (local.get $at) (i32.const 6)))
          (br $next)))
      (if (i32.or
            (i32.or
              (i32.or (i32.eq (local.get $byte) (i32.const 0x22)) (i32.eq (local.get $byte) (i32.const 0x5c)))
              (i32.or (i32.eq (local.get $byte) (i32.const 0x2f)) (i32.eq (local.get $byte) (i32.const 0x62))))
            (i32.or
              (i32.or (i32.eq (local.get $byte) (i32.const 0x66)) (i32.eq (local.get $byte) (i32.const 0x6e)))
              (i32.or (i32.eq (local.get $byte) (i32.const 0x72)) (i32.eq (local.get $byte) (i32.const 0x74)))))
        (then
          (local.set $at (i32.add (local.get $at) (i32.const 2)))
          (br $next)))
      (return (i32.const -1)))
    (i32.const -1))

  (func $digits (param $at i32) (result i32)
    (loop $next
      (if (i32.lt_u (i32.sub (i32.load8_u (local.get $at)) (i32.const 0x30)) (i32.const 10))
        (then
          (local.set $at (i32.add (local.get $at) (i32.const 1)))
          (br $next))))
    (local.get $at))

  ;; -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
  (func $number (param $at i32) (result i32)
    (local $byte i32) (local $end i32)
    (if (i32.eq (i32.load8_u (local.get $at)) (i32.const 0x2d))
      (then (local.set $at (i32.add (local.get $at) (i32.const 1)))))
    (local.set $byte (i32.load8_u (local.get $at)))
    (if (i32.eq (local.get $byte) (i32.const 0x30))
      (then (local.set $at (i32.add (local.get $at) (i32.const 1))))
      (else
        (if (i32.ge_u (i32.sub (local.get $byte) (i32.const 0x31)) (i32.const 9)) (then (return (i32.const -1))))
        (local.set $at (call $digits (i32.add (local.get $at) (i32.const 1))))))
    (if (i32.eq (i32.load8_u (local.get $at)) (i32.const 0x2e))
      (then
        (local.set $end (call $digits (i32.add (local.get $at) (i32.const 1))))
        (if (i32.eq (local.get $end) (i32.add (local.get $at) (i32.const 1))) (then (return (i32.const -1))))
        (local.set $at (local.get $end))))
    (if (i32.eq (i32.or (i32.load8_u (local.get $at)) (i32.const 0x20)) (i32.const 0x65))
      (then
        (local.set $at (i32.add (local.get $at) (i32.const 1)))
        (local.set $byte (i32.load8_u (local.get $at)))
        (if (i32.or (i32.eq (local.get $byte) (i32.const 0x2b)) (i32.eq (local.get $byte) (i32.const 0x2d)))
          (then (local.set $at (i32.add (local.get $at) (i32.const 1)))))
        (local.set $end (call $digits (local.get $at)))
        (if (i32.eq (local.get $end) (local.get $at)) (then (return (i32.const -1))))
        (local.set $at (local.get $end))))
    (local.get $at))

  ;; A value that is not a container, at $at: returns the offset after it, or -1. Sets $kind and $escaped.
  (func $scalar (param $at i32) (result i32)
    (local $byte i32)
    (local.set $byte (i32.load8_u (local.get $at)))
    (if (i32.eq (local.get $byte) (i32.const 0x22))
      (then
        (global.set $kind (global.get $KIND_STRING))
        (return (call $string (local.get $at)))))
    (global.set $escaped (i32.const 0))
    (if (i32.or (i32.eq (local.get $byte) (i32.const 0x2d))
                (i32.lt_u (i32.sub (local.get $byte) (i32.const 0x30)) (i32.const 10)))
      (then
        (global.set $kind (global.get $KIND_NUMBER))
        (return (call $number (local.get $at)))))
    ;; Literals, four bytes at once (little-endian): "null", "true", "fals" + "e".
    (if (i32.eq (i32.load (local.get $at)) (i32.const 0x6c6c756e))
      (then
        (global.set $kind (global.get $KIND_NULL))
        (return (i32.add (local.get $at) (i32.const 4)))))
    (if (i32.eq (i32.load (local.get $at)) (i32.const 0x65757274))
      (then
        (global.set $kind (global.get $KIND_TRUE))
        (return (i32.add (local.get $at) (i32.const 4)))))
    (if (i32.and (i32.eq (i32.load (local.get $at)) (i32.const 0x736c6166))
                 (i32.eq (i32.load8_u offset=4 (local.get $at)) (i32.const 0x65)))
      (then
        (global.set $kind (global.get $KIND_FALSE))
        (return (i32.add (local.get $at) (i32.const 5)))))
    (i32.const -1))

  ;; Whether the container open at depth $depth (1 = top level) is an object.
  (func $is_object_at (param $depth i32) (result i32)
    (local $bit i32)
    (local.set $bit (i32.sub (local.get $depth) (i32.const 1)))
    (i32.and
      (i32.shr_u
        (i32.load8_u (i32.add (global.get $STACK) (i32.shr_u (local.get $bit) (i32.const 3))))
        (i32.and (local.get $bit) (i32.const 7)))
      (i32.const 1)))

  ;; The container that opens at $at and everything in it, iteratively. Returns the offset after it, -1 when
  ;; invalid, -2 when the records are full (the caller scans the frame another way).
  (func $containers (param $at i32) (param $record_depth i32) (result i32)
    (local $state i32) (local $depth i32) (local $byte i32) (local $is_object i32) (local $member i32)
    (local $object i32) (local $key_start i32) (local $level i32) (local $closer i32) (local $bit i32)
    (local $in_object i32) (local $member_record i32) (local $object_record i32)
    (local.set $member (i32.const -1))
    (local.set $in_object (i32.const 1))
    (loop $machine
      (block $after_value
        (block $close
          (block $element
            (block $open
              (br_table $open $element $close $after_value (local.get $state)))
            ;; OPEN: at '{' or '[' (the value of member $member, or -1).
            (local.set $is_object (i32.eq (i32.load8_u (local.get $at)) (i32.const 0x7b)))
            (local.set $in_object (local.get $is_object))
            (local.set $bit (local.get $depth))
            (local.set $level (i32.add (global.get $STACK) (i32.shr_u (local.get $bit) (i32.const 3))))
            (i32.store8 (local.get $level)
              (i32.or
                (i32.and (i32.load8_u (local.get $level))
                         (i32.xor (i32.shl (i32.const 1) (i32.and (local.get $bit) (i32.const 7))) (i32.const -1)))
                (i32.shl (local.get $is_object) (i32.and (local.get $bit) (i32.const 7)))))
            (local.set $depth (i32.add (local.get $depth) (i32.const 1)))
            (if (i32.gt_u (local.get $depth) (global.get $max_depth))
              (then (global.set $max_depth (local.get $depth))))
            (if (i32.le_u (local.get $depth) (i32.add (local.get $record_depth) (i32.const 1)))
              (then
                (local.set $object (i32.const -1))
                (if (i32.and (local.get $is_object)
                             (i32.or (i32.eq (local.get $depth) (i32.const 1))
                                     (i32.ge_s (local.get $member) (i32.const 0))))
                  (then
                    (if (i32.ge_u (global.get $object_count) (global.get $MAX_OBJECTS))
                      (then (return (i32.const -2))))
                    (local.set $object (global.get $object_count))
                    (global.set $object_count (i32.add (local.get $object) (i32.const 1)))
                    (local.set $object_record (i32.add (global.get $OBJECTS) (i32.shl (local.get $object) (i32.const 4))))
                    (i32.store offset=0 (local.get $object_record) (local.get $at))
                    (i32.store offset=8 (local.get $object_record) (i32.const 0))
                    (if (i32.ge_s (local.get $member) (i32.const 0))
                      (then (i32.store offset=24 (local.get $member_record) (local.get $object))))))
                (local.set $level (i32.add (global.get $LEVELS) (i32.shl (local.get $depth) (i32.const 3))))
                (i32.store (local.get $level) (local.get $object))
                (i32.store offset=4 (local.get $level) (local.get $member))))
            (local.set $at (i32.add (local.get $at) (i32.const 1)))
            (if (i32.le_u (i32.load8_u (local.get $at)) (i32.const 0x20)) (then (local.set $at (call $skip_whitespace (local.get $at)))))
            (local.set $closer (select (i32.const 0x7d) (i32.const 0x5d) (local.get $is_object)))
            (local.set $state (select (i32.const 2) (i32.const 1)
                                      (i32.eq (i32.load8_u (local.get $at)) (local.get $closer))))
            (br $machine))
          ;; ELEMENT: at the first byte of a member (in an object) or an element (in an array).
          (local.set $member (i32.const -1))
          (if (local.get $in_object)
            (then
              (if (i32.ne (i32.load8_u (local.get $at)) (i32.const 0x22)) (then (return (i32.const -1))))
              (local.set $key_start (local.get $at))
              (local.set $at (call $string (local.get $at)))
              (if (i32.lt_s (local.get $at) (i32.const 0)) (then (return (i32.const -1))))
              (if (i32.le_u (local.get $depth) (i32.add (local.get $record_depth) (i32.const 1)))
                (then
                  (local.set $object
                    (i32.load (i32.add (global.get $LEVELS) (i32.shl (local.get $depth) (i32.const 3)))))
                  (if (i32.ge_s (local.get $object) (i32.const 0))
                    (then
                      (local.set $object_record (i32.add (global.get $OBJECTS) (i32.shl (local.get $object) (i32.const 4))))
                      (local.set $level (i32.add (local.get $object_record) (i32.const 8)))
                      (i32.store (local.get $level) (i32.add (i32.load (local.get $level)) (i32.const 1)))
                      (if (i32.le_u (local.get $depth) (local.get $record_depth))
                        (then
                          (if (i32.ge_u (global.get $member_count) (global.get $MAX_MEMBERS))
                            (then (return (i32.const -2))))
                          (local.set $member (global.get $member_count))
                          (global.set $member_count (i32.add (local.get $member) (i32.const 1)))
                          (local.set $member_record (i32.add (global.get $MEMBERS) (i32.shl (local.get $member) (i32.const 5))))
                          (i32.store offset=0 (local.get $member_record) (local.get $object))
                          (i32.store offset=4 (local.get $member_record) (local.get $key_start))
                          (i32.store offset=8 (local.get $member_record) (local.get $at))
                          (i32.store offset=12 (local.get $member_record) (global.get $escaped))
                          (i32.store offset=24 (local.get $member_record) (i32.const -1))))))))
              (if (i32.le_u (i32.load8_u (local.get $at)) (i32.const 0x20)) (then (local.set $at (call $skip_whitespace (local.get $at)))))
              (if (i32.ne (i32.load8_u (local.get $at)) (i32.const 0x3a)) (then (return (i32.const -1))))
              (local.set $at (i32.add (local.get $at) (i32.const 1)))
            (if (i32.le_u (i32.load8_u (local.get $at)) (i32.const 0x20)) (then (local.set $at (call $skip_whitespace (local.get $at)))))))
          (local.set $byte (i32.load8_u (local.get $at)))
          (if (i32.or (i32.eq (local.get $byte) (i32.const 0x7b)) (i32.eq (local.get $byte) (i32.const 0x5b)))
            (then
              (if (i32.ge_s (local.get $member) (i32.const 0))
                (then
                  (i32.store offset=16 (local.get $member_record) (local.get $at))
                  (local.set $level (i32.add (local.get $member_record) (i32.const 12)))
                  (i32.store (local.get $level)
                    (i32.or (i32.load (local.get $level))
                            (i32.shl (select (global.get $KIND_OBJECT) (global.get $KIND_ARRAY)
                                             (i32.eq (local.get $byte) (i32.const 0x7b)))
                                     (i32.const 4))))))
              (local.set $state (i32.const 0))
              (br $machine)))
          (local.set $key_start (local.get $at))
          (local.set $at (call $scalar (local.get $at)))
          (if (i32.lt_s (local.get $at) (i32.const 0)) (then (return (i32.const -1))))
          (if (i32.ge_s (local.get $member) (i32.const 0))
            (then
              (i32.store offset=16 (local.get $member_record) (local.get $key_start))
              (i32.store offset=20 (local.get $member_record) (local.get $at))
              (local.set $level (i32.add (local.get $member_record) (i32.const 12)))
              (i32.store (local.get $level)
                (i32.or (i32.load (local.get $level))
                        (i32.or (i32.shl (global.get $kind) (i32.const 4))
                                (i32.shl (global.get $escaped) (i32.const 1)))))))
          (local.set $state (i32.const 3))
          (br $machine))
        ;; CLOSE: at the closer of the container at $depth.
        (if (i32.le_u (local.get $depth) (i32.add (local.get $record_depth) (i32.const 1)))
          (then
            (local.set $level (i32.add (global.get $LEVELS) (i32.shl (local.get $depth) (i32.const 3))))
            (local.set $object (i32.load (local.get $level)))
            (if (i32.ge_s (local.get $object) (i32.const 0))
              (then
                (i32.store offset=4 (i32.add (global.get $OBJECTS) (i32.shl (local.get $object) (i32.const 4)))
                           (local.get $at))))
            (local.set $member (i32.load offset=4 (local.get $level)))
            (if (i32.ge_s (local.get $member) (i32.const 0))
              (then
                (i32.store offset=20 (i32.add (global.get $MEMBERS) (i32.shl (local.get $member) (i32.const 5)))
                           (i32.add (local.get $at) (i32.const 1)))))))
        (local.set $at (i32.add (local.get $at) (i32.const 1)))
        (local.set $depth (i32.sub (local.get $depth) (i32.const 1)))
        (if (i32.eqz (local.get $depth)) (then (return (local.get $at))))
        (local.set $in_object (call $is_object_at (local.get $depth)))
        (local.set $state (i32.const 3))
        (br $machine))
      ;; AFTER_VALUE: a comma and the next member or element, or the closer.
      (if (i32.le_u (i32.load8_u (local.get $at)) (i32.const 0x20)) (then (local.set $at (call $skip_whitespace (local.get $at)))))
      (local.set $byte (i32.load8_u (local.get $at)))
      (if (i32.eq (local.get $byte) (i32.const 0x2c))
        (then
          (local.set $at (i32.add (local.get $at) (i32.const 1)))
            (if (i32.le_u (i32.load8_u (local.get $at)) (i32.const 0x20)) (then (local.set $at (call $skip_whitespace (local.get $at)))))
          (local.set $state (i32.const 1))
          (br $machine)))
      (if (i32.eq (local.get $byte)
                  (select (i32.const 0x7d) (i32.const 0x5d) (local.get $in_object)))
        (then
          (local.set $state (i32.const 2))
          (br $machine))))
    (i32.const -1))

  ;; Scans memory[0, length) (followed by a 0 byte), recording members down to $record_depth (0: none). Returns
  ;; 0 when it is not one JSON value, 1 for an object, 2 for an array, 3 for any other value, 4 when the records
  ;; are full (the caller scans it another way).
  (func (export "scan") (param $length i32) (param $record_depth i32) (result i32)
    (local $status i32)
    (global.set $line_breaks (i32.const 0))
    (global.set $max_depth (i32.const 0))
    (global.set $member_count (i32.const 0))
    (global.set $object_count (i32.const 0))
    (local.set $status (call $top_level (local.get $length) (local.get $record_depth)))
    (i32.store offset=0 (global.get $RESULTS) (global.get $line_breaks))
    (i32.store offset=4 (global.get $RESULTS) (global.get $max_depth))
    (i32.store offset=8 (global.get $RESULTS) (global.get $member_count))
    (i32.store offset=12 (global.get $RESULTS) (global.get $object_count))
    (local.get $status))

  (func $top_level (param $length i32) (param $record_depth i32) (result i32)
    (local $at i32) (local $first i32)
    (local.set $at (call $skip_whitespace (i32.const 0)))
    (local.set $first (i32.load8_u (local.get $at)))
    (if (i32.or (i32.eq (local.get $first) (i32.const 0x7b)) (i32.eq (local.get $first) (i32.const 0x5b)))
      (then (local.set $at (call $containers (local.get $at) (local.get $record_depth))))
      (else (local.set $at (call $scalar (local.get $at)))))
    (if (i32.eq (local.get $at) (i32.const -2)) (then (return (i32.const 4))))
    (if (i32.lt_s (local.get $at) (i32.const 0)) (then (return (i32.const 0))))
    (if (i32.ne (call $skip_whitespace (local.get $at)) (local.get $length)) (then (return (i32.const 0))))
    (if (result i32) (i32.eq (local.get $first) (i32.const 0x7b))
      (then (i32.const 1))
      (else (select (i32.const 2) (i32.const 3) (i32.eq (local.get $first) (i32.const 0x5b)))))))
