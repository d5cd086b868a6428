/**
 * The desktop paper id table: Windows DEVMODE `dmPaperSize` ids (the spec's `paperid`,
 * `MediaSupportedId`, `PaperId`) with their PWG 5101.1 media keyword and size in tenths of a
 * millimetre. Pure data and lookups; nothing to clean up.
 *
 * Rotated entries (Ledger, "A4 Rotated", ...) share the PWG keyword of the portrait size and are
 * flagged `rotated`: PWG names one size per sheet, the desktop ids name each feed direction.
 * Sizes PWG knows but DEVMODE has no id for (photo sizes) live in `namedCustomPapers` with id 256.
 */

/** Desktop id of a custom size (DMPAPER_USER): `paperwidth` / `paperlength` then give the size. */
export const CUSTOM_PAPER_ID = 256;

/** One paper size. */
export interface PaperSize {
  /** Desktop paper id (DEVMODE dmPaperSize); 256 for named custom sizes. */
  readonly id: number;
  /** Display name (A4, Letter, Envelope #10, ...). */
  readonly name: string;
  /** PWG 5101.1 self-describing media keyword (iso_a4_210x297mm). */
  readonly pwg: string;
  /** Width in tenths of a millimetre (A4: 2100). */
  readonly width: number;
  /** Length in tenths of a millimetre (A4: 2970). */
  readonly length: number;
  /** True when width > length for a sheet PWG names in portrait (Ledger, A4 Rotated). */
  readonly rotated?: boolean;
}

function p(id: number, name: string, pwg: string, width: number, length: number): PaperSize {
  return { id, name, pwg, width, length };
}

function r(id: number, name: string, pwg: string, width: number, length: number): PaperSize {
  return { id, name, pwg, width, length, rotated: true };
}

/** The desktop paper ids that map to PWG media names, in id order. */
export const desktopPapers: readonly PaperSize[] = Object.freeze([
  p(1, 'Letter', 'na_letter_8.5x11in', 2159, 2794),
  p(2, 'Letter Small', 'na_letter_8.5x11in', 2159, 2794),
  p(3, 'Tabloid', 'na_ledger_11x17in', 2794, 4318),
  r(4, 'Ledger', 'na_ledger_11x17in', 4318, 2794),
  p(5, 'Legal', 'na_legal_8.5x14in', 2159, 3556),
  p(6, 'Statement', 'na_invoice_5.5x8.5in', 1397, 2159),
  p(7, 'Executive', 'na_executive_7.25x10.5in', 1842, 2667),
  p(8, 'A3', 'iso_a3_297x420mm', 2970, 4200),
  p(9, 'A4', 'iso_a4_210x297mm', 2100, 2970),
  p(10, 'A4 Small', 'iso_a4_210x297mm', 2100, 2970),
  p(11, 'A5', 'iso_a5_148x210mm', 1480, 2100),
  p(12, 'B4 (JIS)', 'jis_b4_257x364mm', 2570, 3640),
  p(13, 'B5 (JIS)', 'jis_b5_182x257mm', 1820, 2570),
  p(14, 'Folio', 'na_foolscap_8.5x13in', 2159, 3302),
  p(15, 'Quarto', 'na_quarto_8.5x10.83in', 2159, 2751),
  p(16, '10x14', 'na_10x14_10x14in', 2540, 3556),
  p(17, '11x17', 'na_ledger_11x17in', 2794, 4318),
  p(18, 'Note', 'na_letter_8.5x11in', 2159, 2794),
  p(19, 'Envelope #9', 'na_number-9_3.875x8.875in', 984, 2254),
  p(20, 'Envelope #10', 'na_number-10_4.125x9.5in', 1048, 2413),
  p(21, 'Envelope #11', 'na_number-11_4.5x10.375in', 1143, 2635),
  p(22, 'Envelope #12', 'na_number-12_4.75x11in', 1207, 2794),
  p(23, 'Envelope #14', 'na_number-14_5x11.5in', 1270, 2921),
  p(24, 'C size sheet', 'na_c_17x22in', 4318, 5588),
  p(25, 'D size sheet', 'na_d_22x34in', 5588, 8636),
  p(26, 'E size sheet', 'na_e_34x44in', 8636, 11176),
  p(27, 'Envelope DL', 'iso_dl_110x220mm', 1100, 2200),
  p(28, 'Envelope C5', 'iso_c5_162x229mm', 1620, 2290),
  p(29, 'Envelope C3', 'iso_c3_324x458mm', 3240, 4580),
  p(30, 'Envelope C4', 'iso_c4_229x324mm', 2290, 3240),
  p(31, 'Envelope C6', 'iso_c6_114x162mm', 1140, 1620),
  p(32, 'Envelope C65', 'iso_c6c5_114x229mm', 1140, 2290),
  p(33, 'Envelope B4', 'iso_b4_250x353mm', 2500, 3530),
  p(34, 'Envelope B5', 'iso_b5_176x250mm', 1760, 2500),
  r(35, 'Envelope B6', 'iso_b6_125x176mm', 1760, 1250),
  p(36, 'Envelope Italy', 'om_italian_110x230mm', 1100, 2300),
  p(37, 'Envelope Monarch', 'na_monarch_3.875x7.5in', 984, 1905),
  p(38, '6 3/4 Envelope', 'na_personal_3.625x6.5in', 921, 1651),
  r(39, 'US Std Fanfold', 'na_fanfold-us_11x14.875in', 3778, 2794),
  p(40, 'German Std Fanfold', 'na_fanfold-eur_8.5x12in', 2159, 3048),
  p(41, 'German Legal Fanfold', 'na_foolscap_8.5x13in', 2159, 3302),
  p(42, 'B4 (ISO)', 'iso_b4_250x353mm', 2500, 3530),
  p(43, 'Japanese Postcard', 'jpn_hagaki_100x148mm', 1000, 1480),
  p(44, '9x11', 'na_9x11_9x11in', 2286, 2794),
  p(45, '10x11', 'na_10x11_10x11in', 2540, 2794),
  r(46, '15x11', 'na_11x15_11x15in', 3810, 2794),
  p(47, 'Envelope Invite', 'om_invite_220x220mm', 2200, 2200),
  p(53, 'A4 Extra', 'iso_a4-extra_235.5x322.3mm', 2355, 3223),
  p(60, 'Letter Plus', 'na_letter-plus_8.5x12.69in', 2159, 3223),
  p(61, 'A4 Plus', 'om_folio_210x330mm', 2100, 3300),
  p(64, 'A3 Extra', 'iso_a3-extra_322x445mm', 3220, 4450),
  p(65, 'A5 Extra', 'iso_a5-extra_174x235mm', 1740, 2350),
  p(66, 'B5 (ISO) Extra', 'iso_b5-extra_201x276mm', 2010, 2760),
  p(67, 'A2', 'iso_a2_420x594mm', 4200, 5940),
  p(70, 'A6', 'iso_a6_105x148mm', 1050, 1480),
  p(71, 'Japanese Envelope Kaku #2', 'jpn_kaku2_240x332mm', 2400, 3320),
  p(72, 'Japanese Envelope Kaku #3', 'jpn_kaku3_216x277mm', 2160, 2770),
  p(73, 'Japanese Envelope Chou #3', 'jpn_chou3_120x235mm', 1200, 2350),
  p(74, 'Japanese Envelope Chou #4', 'jpn_chou4_90x205mm', 900, 2050),
  r(75, 'Letter Rotated', 'na_letter_8.5x11in', 2794, 2159),
  r(76, 'A3 Rotated', 'iso_a3_297x420mm', 4200, 2970),
  r(77, 'A4 Rotated', 'iso_a4_210x297mm', 2970, 2100),
  r(78, 'A5 Rotated', 'iso_a5_148x210mm', 2100, 1480),
  r(79, 'B4 (JIS) Rotated', 'jis_b4_257x364mm', 3640, 2570),
  r(80, 'B5 (JIS) Rotated', 'jis_b5_182x257mm', 2570, 1820),
  r(81, 'Japanese Postcard Rotated', 'jpn_hagaki_100x148mm', 1480, 1000),
  r(82, 'Double Japan Postcard', 'jpn_oufuku_148x200mm', 2000, 1480),
  r(83, 'A6 Rotated', 'iso_a6_105x148mm', 1480, 1050),
  p(88, 'B6 (JIS)', 'jis_b6_128x182mm', 1280, 1820),
  r(89, 'B6 (JIS) Rotated', 'jis_b6_128x182mm', 1820, 1280),
  p(91, 'Japanese Envelope You #4', 'jpn_you4_105x235mm', 1050, 2350),
  p(93, 'PRC 16K', 'prc_16k_146x215mm', 1460, 2150),
  p(94, 'PRC 32K', 'prc_32k_97x151mm', 970, 1510),
  p(96, 'PRC Envelope #1', 'prc_1_102x165mm', 1020, 1650),
  p(97, 'PRC Envelope #2', 'prc_2_102x176mm', 1020, 1760),
  p(98, 'PRC Envelope #3', 'prc_3_125x176mm', 1250, 1760),
  p(99, 'PRC Envelope #4', 'prc_4_110x208mm', 1100, 2080),
  p(100, 'PRC Envelope #5', 'prc_5_110x220mm', 1100, 2200),
  p(101, 'PRC Envelope #6', 'prc_6_120x230mm', 1200, 2300),
  p(102, 'PRC Envelope #7', 'prc_7_160x230mm', 1600, 2300),
  p(103, 'PRC Envelope #8', 'prc_8_120x309mm', 1200, 3090),
  p(105, 'PRC Envelope #10', 'prc_10_324x458mm', 3240, 4580),
]);

/**
 * Sizes with a PWG name but no DEVMODE id (photo and index cards): drivers offer them as
 * custom sizes, so they carry id 256 and are found by name or size, never by id.
 */
export const namedCustomPapers: readonly PaperSize[] = Object.freeze([
  p(CUSTOM_PAPER_ID, '3x5', 'na_index-3x5_3x5in', 762, 1270),
  p(CUSTOM_PAPER_ID, '3.5x5 Photo', 'oe_photo-l_3.5x5in', 889, 1270),
  p(CUSTOM_PAPER_ID, '4x6 Photo', 'na_index-4x6_4x6in', 1016, 1524),
  p(CUSTOM_PAPER_ID, '5x7 Photo', 'na_5x7_5x7in', 1270, 1778),
  p(CUSTOM_PAPER_ID, '5x8', 'na_index-5x8_5x8in', 1270, 2032),
  p(CUSTOM_PAPER_ID, '8x10 Photo', 'na_govt-letter_8x10in', 2032, 2540),
  p(CUSTOM_PAPER_ID, '10x15cm Photo', 'om_small-photo_100x150mm', 1000, 1500),
  p(CUSTOM_PAPER_ID, 'Business Card', 'om_business-card_55x91mm', 550, 910),
]);

/** The custom size entry itself (id 256). */
export const customPaper: PaperSize = Object.freeze({
  id: CUSTOM_PAPER_ID,
  name: 'Custom',
  pwg: 'custom',
  width: 0,
  length: 0,
});

const byId = new Map<number, PaperSize>();
const byPwg = new Map<string, PaperSize>();
for (const paper of desktopPapers) {
  byId.set(paper.id, paper);
  // First portrait entry wins: 'Letter' (1) for na_letter, not 'Letter Small' (2) or 'Note' (18).
  if (!paper.rotated && !byPwg.has(paper.pwg)) byPwg.set(paper.pwg, paper);
}
for (const paper of namedCustomPapers) if (!byPwg.has(paper.pwg)) byPwg.set(paper.pwg, paper);
byId.set(CUSTOM_PAPER_ID, customPaper);

/**
 * Every sized entry in matching order, desktop ids before named custom sizes; built once, as the
 * capability translation matches every size each printer reports against it.
 */
const matchOrder: readonly PaperSize[] = Object.freeze([...desktopPapers, ...namedCustomPapers]);

/** The paper with this desktop id (256 gives the 'Custom' entry), or undefined. */
export function paperById(id: number): PaperSize | undefined {
  return byId.get(id);
}

/**
 * The paper for a PWG media keyword (iso_a4_210x297mm), case-insensitive, or undefined. A PWG
 * keyword names several desktop ids; the first portrait one is returned (na_letter -> 1 Letter).
 */
export function paperByPwgName(name: string): PaperSize | undefined {
  return byPwg.get(name.trim().toLowerCase());
}

/**
 * The paper whose size matches width x length (tenths of a millimetre) within
 * `toleranceMm10` on each side; the closest match wins, desktop ids before named custom sizes,
 * portrait before rotated (a rotated entry only matches its own orientation). Undefined when none.
 */
export function paperBySize(width: number, length: number, toleranceMm10 = 10): PaperSize | undefined {
  let best: PaperSize | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  // An indexed loop: the sync runs this for every size of every printer, and a for-of loop
  // allocates an iterator result per step until the function is optimized.
  for (let i = 0; i < matchOrder.length; i++) {
    const paper = matchOrder[i] as PaperSize;
    const dw = Math.abs(paper.width - width);
    const dl = Math.abs(paper.length - length);
    if (dw > toleranceMm10 || dl > toleranceMm10) continue;
    const distance = dw + dl;
    if (distance < bestDistance) {
      best = paper;
      bestDistance = distance;
    }
  }
  return best;
}

/**
 * The PWG self-describing keyword for a size that has no name: `custom_<w>x<l>mm`, with the
 * millimetre values as PWG writes them (210, 235.5). Pure.
 */
export function customPwgName(width: number, length: number): string {
  return `custom_${width / 10}x${length / 10}mm`;
}
