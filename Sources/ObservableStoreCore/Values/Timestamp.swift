import Foundation

/// The store's text form of dates: RFC 3339, UTC, milliseconds — `2026-11-22T10:00:01.250Z`.
///
/// Hand-written rather than `ISO8601DateFormatter` because rows are decoded by the hundred thousand.
/// Parsing also accepts SQLite's `datetime()` form (`2026-11-22 10:00:01`), no or any number of
/// fractional digits, and `+HH:MM` offsets.
package enum Timestamp {
    /// Formats `date` as `YYYY-MM-DDTHH:MM:SS.mmmZ`, rounding down to the millisecond.
    package static func format(_ date: Date) -> String {
        let totalMilliseconds = milliseconds(of: date)
        var days = totalMilliseconds / 86_400_000
        var milliseconds = totalMilliseconds % 86_400_000
        if milliseconds < 0 {
            milliseconds += 86_400_000
            days -= 1
        }
        let (year, month, day) = civil(fromDays: days)
        let seconds = milliseconds / 1000
        // Written straight into the string's storage: one allocation per date (fetches and inserts make many).
        return String(unsafeUninitializedCapacity: 24) { bytes in
            func put(_ value: Int64, _ width: Int, at offset: Int) {
                var value = value
                for index in stride(from: offset + width - 1, through: offset, by: -1) {
                    bytes[index] = UInt8(48 + value % 10)
                    value /= 10
                }
            }
            put(year, 4, at: 0)
            bytes[4] = 45  // -
            put(month, 2, at: 5)
            bytes[7] = 45
            put(day, 2, at: 8)
            bytes[10] = 84  // T
            put(seconds / 3600, 2, at: 11)
            bytes[13] = 58  // :
            put(seconds / 60 % 60, 2, at: 14)
            bytes[16] = 58
            put(seconds % 60, 2, at: 17)
            bytes[19] = 46  // .
            put(milliseconds % 1000, 3, at: 20)
            bytes[23] = 90  // Z
            return 24
        }
    }

    /// Milliseconds since 1970, rounded down. The time is first rounded to the microsecond, so that
    /// binary noise (-0.001 s stored as -0.00100000000000002) does not lose a millisecond.
    package static func milliseconds(of date: Date) -> Int64 {
        let microseconds = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
        return microseconds >= 0 ? microseconds / 1000 : -((-microseconds + 999) / 1000)
    }

    /// Parses the forms listed on the type; nil for anything else.
    package static func parse(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { parse(bytes: $0) }
    }

    /// Parses UTF-8 bytes (see ``parse(_:)``).
    ///
    /// Whole milliseconds are added up as integers and divided once, so a parsed `…:01.250Z` is exactly
    /// the `Date` that ``milliseconds(of:)`` and `truncatedToMilliseconds` give; finer digits are added
    /// as a fraction of a millisecond.
    package static func parse(bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        if bytes.count == 24, let date = parseCanonical(bytes) { return date }
        return parseAnyForm(bytes)
    }

    /// The form ``format(_:)`` writes, `YYYY-MM-DDTHH:MM:SS.mmmZ`, read in straight-line code: nearly every
    /// date a fetch reads has it. Nil for any other 24 bytes, which ``parseAnyForm(_:)`` then reads.
    private static func parseCanonical(_ bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        guard bytes[4] == 45, bytes[7] == 45, bytes[10] == 84, bytes[13] == 58, bytes[16] == 58, bytes[19] == 46,
            bytes[23] == 90
        else { return nil }
        for index in 0..<23 where index != 4 && index != 7 && index != 10 && index != 13 && index != 16 && index != 19 {
            guard bytes[index] &- 48 < 10 else { return nil }
        }
        func number(_ from: Int, _ count: Int) -> Int64 {
            var value: Int64 = 0
            for index in from..<from + count { value = value * 10 + Int64(bytes[index] &- 48) }
            return value
        }
        let month = number(5, 2)
        let day = number(8, 2)
        let hour = number(11, 2)
        let minute = number(14, 2)
        let second = number(17, 2)
        guard (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        let milliseconds = Self.days(fromCivil: number(0, 4), month, day) * 86_400_000
            + (hour * 3600 + minute * 60 + second) * 1000 + number(20, 3)
        return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// Parses every form listed on the type, digit by digit.
    package static func parseAnyForm(_ bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        var index = 0
        func digits(_ count: Int) -> Int64? {
            guard index + count <= bytes.count else { return nil }
            var value: Int64 = 0
            for _ in 0..<count {
                let byte = bytes[index]
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int64(byte - 48)
                index += 1
            }
            return value
        }
        func expect(_ allowed: UInt8, or other: UInt8? = nil, or third: UInt8? = nil) -> Bool {
            guard index < bytes.count else { return false }
            let byte = bytes[index]
            guard byte == allowed || byte == other || byte == third else { return false }
            index += 1
            return true
        }
        guard let year = digits(4), expect(45), let month = digits(2), expect(45), let day = digits(2),
            (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var milliseconds = Self.days(fromCivil: year, month, day) * 86_400_000
        var belowMillisecond = 0.0
        if index < bytes.count {
            guard expect(84, or: 116, or: 32), let hour = digits(2), expect(58), let minute = digits(2),
                hour < 24, minute < 60
            else { return nil }
            var second: Int64 = 0
            if expect(58) {
                guard let value = digits(2), value < 61 else { return nil }
                second = value
            }
            milliseconds += (hour * 3600 + minute * 60 + second) * 1000
            if expect(46) {
                let start = index
                var scale: Int64 = 100
                var rest = 0.0
                var restScale = 0.1
                while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                    let digit = Int64(bytes[index] - 48)
                    if scale > 0 {
                        milliseconds += digit * scale
                        scale /= 10
                    } else {
                        rest += Double(digit) * restScale
                        restScale /= 10
                    }
                    index += 1
                }
                guard index > start else { return nil }
                belowMillisecond = rest
            }
            if index < bytes.count, !expect(90, or: 122) {
                let sign: Int64 = bytes[index] == 45 ? -1 : 1
                guard expect(43, or: 45), let offsetHours = digits(2), expect(58), let offsetMinutes = digits(2)
                else { return nil }
                milliseconds -= sign * (offsetHours * 3600 + offsetMinutes * 60) * 1000
            }
            guard index == bytes.count else { return nil }
        }
        return Date(timeIntervalSince1970: (Double(milliseconds) + belowMillisecond) / 1000)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    package static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date of a day count since 1970-01-01.
    package static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
