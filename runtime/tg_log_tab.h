/* tg_log_tab.h: written by tools/log_table.py (its docstring says how);
 * do not edit. tg_log_tab[0][i] = 1/c_i rounded, tg_log_tab[1][i] =
 * -ln(tg_log_tab[0][i]) rounded, c_i the centre of z's interval i (1 for
 * i = 19, 20). */
#ifndef TG_LOG_TAB_H
#define TG_LOG_TAB_H
static const double tg_log_tab[2][32] __attribute__((aligned(64))) = {
    {0x1.702e05c0b8170p+0, 0x1.6816816816817p+0, 0x1.6058160581606p+0, 0x1.58ed2308158edp+0,
     0x1.51d07eae2f815p+0, 0x1.4afd6a052bf5bp+0, 0x1.446f86562d9fbp+0, 0x1.3e22cbce4a902p+0,
     0x1.3813813813814p+0, 0x1.323e34a2b10bfp+0, 0x1.2c9fb4d812ca0p+0, 0x1.27350b8812735p+0,
     0x1.21fb78121fb78p+0, 0x1.1cf06ada2811dp+0, 0x1.1811811811812p+0, 0x1.135c81135c811p+0,
     0x1.0ecf56be69c90p+0, 0x1.0a6810a6810a7p+0, 0x1.0624dd2f1a9fcp+0, 0x1.0000000000000p+0,
     0x1.0000000000000p+0, 0x1.e9131abf0b767p-1, 0x1.dae6076b981dbp-1, 0x1.cd85689039b0bp-1,
     0x1.c0e070381c0e0p-1, 0x1.b4e81b4e81b4fp-1, 0x1.a98ef606a63bep-1, 0x1.9ec8e951033d9p-1,
     0x1.948b0fcd6e9e0p-1, 0x1.8acb90f6bf3aap-1, 0x1.8181818181818p-1, 0x1.78a4c8178a4c8p-1},
    {-0x1.741d876c67bb1p-2, -0x1.5d5bddf595f31p-2, -0x1.4718dc271c41cp-2, -0x1.314f1e1d35ce3p-2,
     -0x1.1bf99635a6b95p-2, -0x1.07138604d5864p-2, -0x1.e530effe71013p-3, -0x1.bd087383bd8aap-3,
     -0x1.95a5adcf70182p-3, -0x1.6f0128b756ab9p-3, -0x1.4913d8333b563p-3, -0x1.23d712a49c201p-3,
     -0x1.fe89139dbd565p-4, -0x1.b6ac88dad5b1dp-4, -0x1.700d30aeac0e8p-4, -0x1.2aa04a44717a1p-4,
     -0x1.ccb73cdddb2d0p-5, -0x1.466aed42de3f9p-5, -0x1.8492528c8cac5p-6, 0x0.0p+0,
     0x0.0p+0, 0x1.77458f632dcffp-5, 0x1.341d7961bd1d0p-4, 0x1.a926d3a4ad562p-4,
     0x1.0d77e7cd08e5bp-3, 0x1.44d2b6ccb7d1cp-3, 0x1.7ab890210d907p-3, 0x1.af3c94e80bff3p-3,
     0x1.e27076e2af2e8p-3, 0x1.0a324e27390e2p-2, 0x1.22941fbcf7966p-2, 0x1.3a64c556945eap-2},
};
#endif
