"""JVM instructions: lengths, branch operands, and opcodes the code generators emit (JVMS chapter 6)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Instruction", "decode", "BRANCHES"]

# Opcodes used by name elsewhere.
NOP, ACONST_NULL, ICONST_0, LCONST_0, FCONST_0, DCONST_0 = 0x00, 0x01, 0x03, 0x09, 0x0B, 0x0E
BIPUSH, SIPUSH, LDC, LDC_W, LDC2_W = 0x10, 0x11, 0x12, 0x13, 0x14
ILOAD, LLOAD, FLOAD, DLOAD, ALOAD = 0x15, 0x16, 0x17, 0x18, 0x19
ISTORE, ASTORE = 0x36, 0x3A
POP, POP2, DUP, DUP_X1, DUP_X2, DUP2, DUP2_X1, DUP2_X2, SWAP = 0x57, 0x58, 0x59, 0x5A, 0x5B, 0x5C, 0x5D, 0x5E, 0x5F
IADD, LADD, FADD, DADD = 0x60, 0x61, 0x62, 0x63
ISUB, IMUL, IDIV, IREM, INEG = 0x64, 0x68, 0x6C, 0x70, 0x74
ISHL, ISHR, IUSHR, IAND, IOR, IXOR = 0x78, 0x7A, 0x7C, 0x7E, 0x80, 0x82
I2L, I2F, I2D, L2I, L2F, L2D, F2I, F2L, F2D, D2I, D2L, D2F, I2B, I2C, I2S = range(0x85, 0x94)
LCMP, FCMPL, FCMPG, DCMPL, DCMPG = 0x94, 0x95, 0x96, 0x97, 0x98
IFEQ, IFNE, IFLT, IFGE, IFGT, IFLE = 0x99, 0x9A, 0x9B, 0x9C, 0x9D, 0x9E
IF_ICMPEQ, IF_ICMPNE, IF_ICMPLT, IF_ICMPGE, IF_ICMPGT, IF_ICMPLE, IF_ACMPEQ, IF_ACMPNE = range(0x9F, 0xA7)
GOTO, JSR, RET, TABLESWITCH, LOOKUPSWITCH = 0xA7, 0xA8, 0xA9, 0xAA, 0xAB
IRETURN, ARETURN, RETURN = 0xAC, 0xB0, 0xB1
GETSTATIC, PUTSTATIC, GETFIELD, PUTFIELD = 0xB2, 0xB3, 0xB4, 0xB5
INVOKEVIRTUAL, INVOKESPECIAL, INVOKESTATIC, INVOKEINTERFACE, INVOKEDYNAMIC = 0xB6, 0xB7, 0xB8, 0xB9, 0xBA
NEW, NEWARRAY, ANEWARRAY, ARRAYLENGTH, ATHROW, CHECKCAST, INSTANCEOF = 0xBB, 0xBC, 0xBD, 0xBE, 0xBF, 0xC0, 0xC1
WIDE, MULTIANEWARRAY, IFNULL, IFNONNULL, GOTO_W, JSR_W = 0xC4, 0xC5, 0xC6, 0xC7, 0xC8, 0xC9

# Instructions with a 16-bit relative branch operand, and the two with a 32-bit one.
BRANCHES = frozenset([*range(IFEQ, JSR + 1), IFNULL, IFNONNULL])
WIDE_BRANCHES = frozenset([GOTO_W, JSR_W])

_LENGTH = [1] * 256
for _op in (BIPUSH, LDC, *range(ILOAD, ALOAD + 1), *range(ISTORE, ASTORE + 1), RET, NEWARRAY):
    _LENGTH[_op] = 2
for _op in (SIPUSH, LDC_W, LDC2_W, 0x84, *BRANCHES, *range(GETSTATIC, INVOKESTATIC + 1), NEW, ANEWARRAY,
            CHECKCAST, INSTANCEOF):  # 0x84 = iinc
    _LENGTH[_op] = 3
_LENGTH[MULTIANEWARRAY] = 4
for _op in (INVOKEINTERFACE, INVOKEDYNAMIC, GOTO_W, JSR_W):
    _LENGTH[_op] = 5
_VALID = set(range(0x00, 0xCA))


@dataclass
class Instruction:
    """One decoded instruction. ``targets`` are absolute code offsets it may jump to (branches and
    switches); for a switch, ``targets[0]`` is the default and ``keys`` the match values (lookupswitch)
    or (low, high) (tableswitch)."""

    offset: int
    opcode: int
    length: int
    targets: list[int]
    keys: list[int]

    @property
    def is_switch(self) -> bool:
        return self.opcode in (TABLESWITCH, LOOKUPSWITCH)


def decode(code: bytes) -> list[Instruction]:
    """Every instruction of a method body, in order; raises ValueError on an unknown opcode."""
    out: list[Instruction] = []
    pos = 0
    n = len(code)
    while pos < n:
        op = code[pos]
        if op not in _VALID:
            raise ValueError(f"unknown opcode 0x{op:02x} at {pos}")
        targets: list[int] = []
        keys: list[int] = []
        if op in BRANCHES:
            length = 3
            targets.append(pos + int.from_bytes(code[pos + 1:pos + 3], "big", signed=True))
        elif op in WIDE_BRANCHES:
            length = 5
            targets.append(pos + int.from_bytes(code[pos + 1:pos + 5], "big", signed=True))
        elif op in (TABLESWITCH, LOOKUPSWITCH):
            base = pos + 1 + (3 - pos % 4)  # operands start at the next multiple of 4
            default = _words(code, base, 0, 1)[0]
            if op == TABLESWITCH:
                low, high = _words(code, base, 1, 2)
                offsets = _words(code, base, 3, high - low + 1)
                keys = [low, high]
                length = base - pos + 12 + 4 * len(offsets)
            else:
                npairs = _words(code, base, 1, 1)[0]
                pairs = _words(code, base, 2, 2 * npairs)
                keys, offsets = pairs[0::2], pairs[1::2]
                length = base - pos + 8 + 8 * npairs
            targets = [pos + default] + [pos + o for o in offsets]
        elif op == WIDE:
            length = 6 if code[pos + 1] == 0x84 else 4
        else:
            length = _LENGTH[op]
        if pos + length > n:
            raise ValueError(f"instruction 0x{op:02x} at {pos} runs past the end of the code")
        out.append(Instruction(pos, op, length, targets, keys))
        pos += length
    return out


def _words(code: bytes, base: int, first: int, count: int) -> list[int]:
    return [int.from_bytes(code[base + 4 * k:base + 4 * k + 4], "big", signed=True) for k in range(first, first + count)]


def switch_bytes(ins: Instruction, at: int, targets: list[int]) -> bytes:
    """A switch re-encoded at offset ``at`` with absolute ``targets`` (padding follows ``at``)."""
    out = bytearray([ins.opcode])
    out += bytes(3 - at % 4)
    rel = [t - at for t in targets]
    out += rel[0].to_bytes(4, "big", signed=True)
    if ins.opcode == TABLESWITCH:
        out += ins.keys[0].to_bytes(4, "big", signed=True) + ins.keys[1].to_bytes(4, "big", signed=True)
        for r in rel[1:]:
            out += r.to_bytes(4, "big", signed=True)
    else:
        out += len(ins.keys).to_bytes(4, "big", signed=True)
        for key, r in zip(ins.keys, rel[1:], strict=True):
            out += key.to_bytes(4, "big", signed=True) + r.to_bytes(4, "big", signed=True)
    return bytes(out)


def switch_length(ins: Instruction, at: int) -> int:
    pad = 3 - at % 4
    if ins.opcode == TABLESWITCH:
        return 1 + pad + 12 + 4 * (len(ins.targets) - 1)
    return 1 + pad + 8 + 8 * len(ins.keys)
