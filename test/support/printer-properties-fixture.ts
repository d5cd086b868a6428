/**
 * The capability properties of a plain printer for tests: colour, duplex, A4 only, portrait,
 * 600 dpi, one tray 'Upper' (index 1), its defaults the first of each. A test names only what its
 * printer does differently; `Default` is laid over the plain defaults field by field, so a
 * test that changes the trays names the default tray it wants there too.
 */
import type { PrinterCapabilityProperties, PrinterDefaults } from '../../src/protocol/printer-properties.js';

export type PrinterPropertiesChanges = Partial<Omit<PrinterCapabilityProperties, 'Default'>> & {
  Default?: Partial<PrinterDefaults>;
};

export function a4PrinterProperties(changes: PrinterPropertiesChanges = {}): PrinterCapabilityProperties {
  const { Default, ...rest } = changes;
  return {
    Driver: 'd',
    Collate: true,
    Color: true,
    ColorSupported: true,
    DuplexSupported: true,
    DuplexMode: 1,
    MediaSupported: ['A4'],
    MediaSupportedId: [9],
    OrientationsSupported: ['Portrait'],
    OrientationsSupportedId: [1],
    PaperFormats: [{ Id: 9, Name: 'A4', XRes: 2100, YRes: 2970, Default: true }],
    Resolutions: ['600'],
    Trays: [{ Index: 1, Name: 'Upper', Default: true }],
    ...rest,
    Default: {
      Duplex: 'None',
      DuplexIndex: 1,
      Color: 'Color',
      Orientation: 'Portrait',
      OrientationIndex: 1,
      Resolution: '600',
      Paper: 'A4',
      PaperId: 9,
      Tray: 'Upper',
      TrayIndex: 1,
      ...Default,
    },
  };
}
