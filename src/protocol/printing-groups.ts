/**
 * Wire shapes of the admin API's printing groups, printing user settings and printer-group
 * assignments (/printing/v1/groups/, /printing/v1/users/, /printing/v1/assignments). Types only.
 */

/** A Group of the admin API. */
export interface GroupWire {
  id: string;
  name: string;
  description: string;
  local_printing_enabled: boolean;
  myprinters_enabled: boolean;
  origin: { provider: string };
  organization_id: string;
  num_members: number;
  num_printers: number;
}

/** A user's printing settings with the groups the user belongs to. */
export interface PrintingUserWire {
  id: string;
  local_printing_enabled: boolean;
  self_service_enabled: boolean;
  myprinters_enabled: boolean;
  pull_printing_enabled: boolean;
  groups: { group_id: string }[];
}

/** One group of a printer's assignment. */
export interface AssignmentGroupWire {
  group_id: string;
  group_name: string;
  /** Always null in the emulator (no directory sync). */
  group_foreign_id: string | null;
  force_chosen: boolean;
}

/** The assignment element of one printer. */
export interface AssignmentWire {
  printer_id: string;
  printer_name: string;
  /** One element holding every group of the printer; settings are always null. */
  assignments: { settings: null; groups: AssignmentGroupWire[] }[];
}

/** The body of PATCH and DELETE /printing/v1/assignments/<printer_id>/. */
export interface AssignmentChangeBody {
  assignment: { groups: { group_id: string; force_chosen?: boolean }[] }[];
}
