"""The first words of PTX instructions (PTX ISA 9.x, chapter 9 "Instruction Set").

Only the opcode word, before the first ``.``; the full modifier grammar lives in the instruction
table. This set decides whether a template is PTX at all, so it must not contain words that are
x86 or ARM-only mnemonics.
"""

PTX_OPCODES: frozenset[str] = frozenset(
    """
    abs activemask add addc alloca and applypriority atom bar barrier bfe bfi bfind bmsk bra
    brev brkpt brx call clusterlaunchcontrol clz cnot copysign cos cp cp.async createpolicy cvt
    cvta discard div dp2a dp4a elect ex2 exit fabric fence fma fns getctarank griddepcontrol
    isspacep istypep ld ldmatrix ldu lg2 lop3 mad mad24 madc mapa match max mbarrier membar min
    mma mov movmatrix mul mul24 multimem nanosleep neg not or pmevent popc prefetch prefetchu
    prmt rcp red redux rem ret rsqrt sad selp set setmaxnreg setp shf shfl shl shr sin slct sqrt
    st stackrestore stacksave stmatrix sub subc suld suq sured sust szext tanh tcgen05 tensormap
    testp tex tld4 trap txq vabsdiff vabsdiff2 vabsdiff4 vadd vadd2 vadd4 vavrg2 vavrg4 vmad
    vmax vmax2 vmax4 vmin vmin2 vmin4 vote vset vset2 vset4 vshl vshr vsub vsub2 vsub4 wgmma
    wmma xor
    """.split()
)

# Directives that may appear inside an inline template.
PTX_DIRECTIVES: frozenset[str] = frozenset(
    {".reg", ".pred", ".shared", ".local", ".param", ".global", ".const", ".pragma", ".loc"}
)
