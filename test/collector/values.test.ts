import { describe, expect, it } from 'vitest';
import {
  areaSqft,
  areaSqftFromText,
  count,
  epochMs,
  isoDate,
  monthlyFee,
  neighborhoodName,
  num,
  oneLineAddress,
  positive,
  siteUrl,
  text,
  upperSnake,
  year,
  yearOf,
} from '../../src/collector/mapping/values.js';

describe('numbers', () => {
  it.each([
    [1206, 1206],
    ['1,206 sqft', 1206],
    ['$486 monthly', 486],
    ['1.2 Acres', 1.2],
    ['-1', -1],
    ['', null],
    ['n/a', null],
    [null, null],
    [Number.NaN, null],
    [Number.POSITIVE_INFINITY, null],
    [true, null],
  ])('num(%j) = %j', (input, out) => {
    expect(num(input)).toBe(out);
  });

  it('positive: 0 and the -1 sentinel mean "not shown"', () => {
    expect(positive(0)).toBeNull();
    expect(positive(-1)).toBeNull();
    expect(positive('$265,000')).toBe(265000);
  });

  it('count: whole numbers from zero up; zero is kept', () => {
    expect(count(0)).toBe(0);
    expect(count(372)).toBe(372);
    expect(count(-1)).toBeNull();
    expect(count(2.5)).toBeNull();
  });

  it('year: four-digit years only', () => {
    expect(year(1964)).toBe(1964);
    expect(year('1998')).toBe(1998);
    expect(year(-1)).toBeNull();
    expect(year(0)).toBeNull();
    expect(year(19640)).toBeNull();
  });
});

describe('monthlyFee', () => {
  it.each([
    ['$486 monthly', undefined, 486],
    ['$276 annually', undefined, 23],
    [600, 'Quarterly', 200],
    ['$1,200 Annually', undefined, 100],
    ['$300 semi-annually', undefined, 50],
    [84, undefined, 84],
    ['$0 monthly', undefined, null],
    [null, 'Monthly', null],
  ])('monthlyFee(%j, %j) = %j', (amount, frequency, out) => {
    expect(monthlyFee(amount, frequency)).toBe(out);
  });
});

describe('areas', () => {
  it('converts acres to whole square feet', () => {
    expect(areaSqft(2.5, 'Acres')).toBe(108900);
    expect(areaSqft(0.16, 'acres')).toBe(6970);
    expect(areaSqft(1.2, 'Acres')).toBe(52272);
  });

  it('keeps square feet and rounds them', () => {
    expect(areaSqft(1206.612, 'Square Feet')).toBe(1207);
    expect(areaSqft(3746, 'sqft')).toBe(3746);
  });

  it('refuses an unknown unit and non-positive values', () => {
    expect(areaSqft(10, 'hectares')).toBeNull();
    expect(areaSqft(0, 'sqft')).toBeNull();
  });

  it('reads areas written as text with their unit', () => {
    expect(areaSqftFromText('6,969 sqft')).toBe(6969);
    expect(areaSqftFromText('2.50 Acres')).toBe(108900);
    expect(areaSqftFromText('1,133 Square Feet')).toBe(1133);
    expect(areaSqftFromText('large')).toBeNull();
  });
});

describe('dates', () => {
  it('turns epoch milliseconds (number or digit string) into a UTC date', () => {
    expect(isoDate(1718582400000)).toBe('2024-06-17');
    expect(isoDate('1789542000000')).toBe('2026-09-16');
  });

  it('reads MM/DD/YYYY and ISO dates', () => {
    expect(isoDate('06/17/2024')).toBe('2024-06-17');
    expect(isoDate('2024-10-28')).toBe('2024-10-28');
    expect(isoDate('2024-10-28T15:00:00Z')).toBe('2024-10-28');
  });

  it('refuses "0", impossible dates and junk', () => {
    expect(isoDate('0')).toBeNull();
    expect(isoDate(0)).toBeNull();
    expect(isoDate('02/30/2024')).toBeNull();
    expect(isoDate('2024-13-01')).toBeNull();
    expect(isoDate('soon')).toBeNull();
  });

  it('epochMs only takes plausible timestamps', () => {
    expect(epochMs('1793952000000')).toBe(1793952000000);
    expect(epochMs(2024)).toBeNull();
    expect(epochMs('12ab')).toBeNull();
  });

  it('yearOf gives the UTC year of a tax row time', () => {
    expect(yearOf(1656385173582)).toBe(2022);
    expect(yearOf(null)).toBeNull();
  });
});

describe('addresses', () => {
  it('neighborhoodName: a ZIP code is no neighbourhood', () => {
    expect(neighborhoodName(' Oceanview ')).toBe('Oceanview');
    expect(neighborhoodName('85390')).toBeNull();
    expect(neighborhoodName('85390-1234')).toBeNull();
    expect(neighborhoodName('Zone 85390')).toBe('Zone 85390');
    expect(neighborhoodName(null)).toBeNull();
  });

  it('oneLineAddress joins what is known', () => {
    expect(oneLineAddress('1 Main St', 'Ames', 'IA', '50010')).toBe('1 Main St, Ames, IA 50010');
    expect(oneLineAddress('1 Main St', null, 'IA', null)).toBe('1 Main St, IA');
    expect(oneLineAddress(null, null, null, null)).toBeNull();
  });

  it('siteUrl makes site paths absolute and keeps absolute links', () => {
    expect(siteUrl('/homedetails/1_zpid/')).toBe('https://www.zillow.com/homedetails/1_zpid/');
    expect(siteUrl('https://www.zillow.com/b/x-AbCd1/')).toBe('https://www.zillow.com/b/x-AbCd1/');
    expect(siteUrl('homedetails/1_zpid/')).toBeNull();
  });
});

describe('text and enums', () => {
  it('text trims, drops empty strings and writes numbers as digits', () => {
    expect(text(' Wong Real Estate Grp')).toBe('Wong Real Estate Grp');
    expect(text('   ')).toBeNull();
    expect(text(2146993218)).toBe('2146993218');
    expect(text({})).toBeNull();
  });

  it('upperSnake turns the site CamelCase enums into its UPPER_SNAKE ones', () => {
    expect(upperSnake('SingleFamily')).toBe('SINGLE_FAMILY');
    expect(upperSnake('RecentlySold')).toBe('RECENTLY_SOLD');
    expect(upperSnake('multiFamily')).toBe('MULTI_FAMILY');
    expect(upperSnake('FOR_SALE')).toBe('FOR_SALE');
    expect(upperSnake(null)).toBeNull();
  });
});
