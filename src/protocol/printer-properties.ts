/**
 * Printer properties as /sfapi/GetPrinterProperties returns them: the shape of a desktop
 * device-mode structure. The connector computes everything but the identity fields from the
 * printer's own attributes and uploads it; the emulator adds Id, Name, Location and TPUID.
 */
export interface PaperFormat {
  Id: number;
  Name: string;
  /** Paper width in tenths of a millimetre (A4: 2100). */
  XRes: number;
  /** Paper length in tenths of a millimetre (A4: 2970). */
  YRes: number;
  Default: boolean;
}

export interface Tray {
  Index: number;
  Name: string;
  Default: boolean;
}

export interface PrinterDefaults {
  Duplex: string;
  DuplexIndex: number;
  Color: string;
  Orientation: string | null;
  OrientationIndex: number | null;
  Resolution: string;
  Paper: string;
  PaperId: number;
  Tray: string;
  TrayIndex: number;
}

/** What the connector reports for a printer. */
export interface PrinterCapabilityProperties {
  Driver: string;
  Collate: boolean;
  Color: boolean;
  ColorSupported: boolean;
  DuplexSupported: boolean;
  DuplexMode: number;
  MediaSupported: string[];
  MediaSupportedId: number[];
  OrientationsSupported: string[];
  OrientationsSupportedId: number[];
  PaperFormats: PaperFormat[];
  Resolutions: string[];
  /** `[null]` when the printer's trays are unknown (as real clients see it). */
  Trays: (Tray | null)[];
  Default: PrinterDefaults;
}

/** One element of the GetPrinterProperties array. */
export interface PrinterProperties extends PrinterCapabilityProperties {
  Id: string;
  Name: string;
  Location: string;
  TPUID: number;
}
