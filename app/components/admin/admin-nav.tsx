import { NavLink } from '@remix-run/react';

/** The console's parts, under its heading. */
export function AdminNav() {
  return (
    <nav aria-label="Admin" className="admin-nav">
      <NavLink to="/admin" end>
        Users
      </NavLink>
      <NavLink to="/admin/invitations">Invitations</NavLink>
      <NavLink to="/admin/storage">Storage</NavLink>
      <NavLink to="/admin/settings">Settings</NavLink>
      <NavLink to="/admin/audit">Activity log</NavLink>
    </nav>
  );
}
